/**
 * `gem-ts eval`: evaluate a model served behind an OpenAI-compatible chat-completions endpoint
 * (vLLM, SGLang, OpenAI, …) on GEM envs; see USAGE below and docs/eval.md.
 */
import { readFileSync } from 'node:fs';
import { isGemError } from '../core/errors.ts';
import { inLanguage } from '../core/codeHint.ts';
import { evaluate, type EvalOptions } from '../eval/evaluator.ts';
import { progressReporter } from '../eval/progress.ts';
import { EVAL_MODES, type EvalMode } from '../eval/transcript.ts';
import { PROMPT_TEMPLATES } from '../data/datasetOptions.ts';
import { resolveOptions } from '../envs/defaultRegistry.ts';

const USAGE = `usage: gem-ts eval --base-url URL --model NAME --env ID[,ID...] [options]

Plays seeded episodes of GEM envs against a model behind an OpenAI-compatible
chat-completions endpoint and reports success rate (Wilson 95% CI), mean return,
turns, format errors and tokens per env id.

endpoint
  --base-url URL           e.g. http://localhost:8000/v1 (default: $OPENAI_BASE_URL)
  --model NAME             model name the server knows
  --api-key KEY            bearer token (default: $OPENAI_API_KEY; none for local servers)
  --timeout SEC            per request (default 300)
  --retries N              retries of a failed request: 408/429/5xx, network, timeout,
                           unreadable reply; exponential backoff from 1 s (default 3)
  --extra-body JSON        extra request fields, e.g. '{"chat_template_kwargs":{"enable_thinking":false}}'

what to play
  --env ID[,ID...]         env ids (repeatable); see gem-ts list
  --episodes N|all         episodes per env id, seeds S..S+N-1 (default 10); dataset
                           envs (math, code, QA, eval:*) play problem number = seed,
                           each once; 'all' plays every problem from S on
  --seed S                 first seed (default 0)
  --option KEY=VALUE       env option for every env id (repeatable), e.g. max_turns=8
  --wrappers A,B           GEM wrappers, innermost first: python_tool, search_tool, ...
  --wrapper-option K=V     wrapper option (repeatable), e.g. search_corpus=docs.jsonl
  --mode MODE              chat (default): a growing conversation, one user message
                           per observation; concat / concat_with_action: one user
                           message holding the whole history, rebuilt every turn
  --system FILE            system prompt read from FILE
  --max-turns T            model turns before an episode is stopped (default 100)
                           math envs: --option prompt_template=boxed|none|'TEXT {question}'
                           sets the instruction (eval:* math sets default to boxed, which
                           asks for a \\boxed{} answer); --option extract_from_prose=true
                           also grades a final answer stated without a box

sampling (sent only when given; otherwise the server's defaults apply)
  --temperature X   --top-p X   --max-tokens N   --stop STR (repeatable)

run
  --concurrency C          episodes in flight at once (default 8)
  --out DIR                output folder (default eval-results/<model>); holds
                           transcripts.jsonl, summary.json, summary.md. Re-running with
                           the same folder skips finished episodes.
  --max-episode-errors N   failed episodes tolerated before the run stops (default 0)
  --quiet                  no progress lines on stderr

exit status: 0 every episode finished; 1 some episodes failed (an env or tool
fault); 2 bad arguments or settings; 3 the endpoint failed (unreachable, errors
after retries, unreadable replies); 130 interrupted (Ctrl-C). Finished episodes
are kept; re-run the same command to resume.`;

class UsageError extends Error {}

function optionValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function numberArg(flag: string, v: string, integer: boolean): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} needs ${integer ? 'an integer' : 'a number'}, got '${v}'`);
  }
  return n;
}

function keyValue(flag: string, kv: string, into: Record<string, unknown>): void {
  const eq = kv.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} needs KEY=VALUE, got '${kv}'`);
  into[kv.slice(0, eq)] = optionValue(kv.slice(eq + 1));
}

function slug(model: string): string {
  return model.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'model';
}

interface CliOptions extends EvalOptions {
  quiet: boolean;
  outDir: string;
}

const FLAGS_WITH_VALUE = new Set([
  '--base-url', '--model', '--api-key', '--timeout', '--retries', '--extra-body', '--env', '--episodes', '--seed',
  '--option', '--wrappers', '--wrapper-option', '--mode', '--system', '--max-turns', '--temperature', '--top-p',
  '--max-tokens', '--stop', '--concurrency', '--out', '--max-episode-errors',
]);

export function parseArgs(args: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const v: Record<string, string> = {};
  const envIds: string[] = [];
  const envOptions: Record<string, unknown> = {};
  const wrapperOptions: Record<string, unknown> = {};
  const stop: string[] = [];
  let quiet = false;
  for (let i = 0; i < args.length; i++) {
    let flag = args[i];
    let value: string | undefined;
    const eq = flag.indexOf('=');
    if (flag.startsWith('--') && eq > 0) [flag, value] = [flag.slice(0, eq), flag.slice(eq + 1)];
    if (flag === '--quiet' || flag === '-q') {
      quiet = true;
      continue;
    }
    if (!FLAGS_WITH_VALUE.has(flag)) {
      throw new UsageError(flag.startsWith('-') ? `unknown flag ${flag}` : `unexpected argument '${flag}'`);
    }
    value ??= args[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    if (flag === '--env') envIds.push(...value.split(',').map((s) => s.trim()).filter(Boolean));
    else if (flag === '--option') keyValue(flag, value, envOptions);
    else if (flag === '--wrapper-option') keyValue(flag, value, wrapperOptions);
    else if (flag === '--stop') stop.push(value);
    else v[flag] = value;
  }
  const baseUrl = v['--base-url'] ?? env.OPENAI_BASE_URL;
  if (!baseUrl) throw new UsageError('--base-url is required (or set OPENAI_BASE_URL)');
  const model = v['--model'];
  if (!model) throw new UsageError('--model is required');
  if (!envIds.length) throw new UsageError('--env is required (one or more env ids; see gem-ts list)');
  const mode = v['--mode'] ?? 'chat';
  if (!(EVAL_MODES as readonly string[]).includes(mode)) throw new UsageError(`--mode must be one of ${EVAL_MODES.join(', ')}, got '${mode}'`);
  const int = (flag: string) => (v[flag] === undefined ? undefined : numberArg(flag, v[flag], true));
  const num = (flag: string) => (v[flag] === undefined ? undefined : numberArg(flag, v[flag], false));
  let system: string | undefined;
  if (v['--system'] !== undefined) {
    try {
      system = readFileSync(v['--system'], 'utf8');
    } catch (e) {
      throw new UsageError(`--system: cannot read ${v['--system']}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  let extraBody: Record<string, unknown> | undefined;
  if (v['--extra-body'] !== undefined) {
    const parsed = optionValue(v['--extra-body']);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--extra-body needs a JSON object, got '${v['--extra-body']}'`);
    extraBody = parsed as Record<string, unknown>;
  }
  const timeout = num('--timeout');
  if (timeout !== undefined && !(timeout > 0)) throw new UsageError(`--timeout must be > 0 seconds, got ${timeout}`);
  const retries = int('--retries');
  if (retries !== undefined && retries < 0) throw new UsageError(`--retries must be >= 0, got ${retries}`);
  return {
    baseUrl,
    model,
    apiKey: v['--api-key'] ?? env.OPENAI_API_KEY,
    envIds,
    episodes: v['--episodes'] === 'all' ? 'all' : int('--episodes'),
    seed: int('--seed'),
    concurrency: int('--concurrency'),
    mode: mode as EvalMode,
    system,
    maxTurns: int('--max-turns'),
    sampling: { temperature: num('--temperature'), topP: num('--top-p'), maxTokens: int('--max-tokens'), stop: stop.length ? stop : undefined },
    wrappers: v['--wrappers'],
    wrapperOptions,
    envOptions,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    maxRetries: retries,
    extraBody,
    outDir: v['--out'] ?? `eval-results/${slug(model)}`,
    maxEpisodeErrors: int('--max-episode-errors'),
    quiet,
  };
}

/**
 * One line per env id that takes a prompt template: which one the episodes will be played with, so a
 * bare-problem run (a chat model scores near 0 without an answer instruction) is never silent.
 */
export function templateLines(envIds: readonly string[], envOptions: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const id of envIds) {
    let options: Record<string, unknown>;
    try {
      options = resolveOptions(id, envOptions).spec.options;
    } catch {
      continue; // the evaluation itself reports bad ids and options
    }
    const template = options.prompt_template;
    if (typeof template !== 'string') continue;
    if (template === 'none') lines.push(`${id}: prompt template 'none' (the bare problem; --option prompt_template=boxed asks for a \\boxed{} answer)`);
    else if (template in PROMPT_TEMPLATES) lines.push(`${id}: prompt template '${template}': ${JSON.stringify(PROMPT_TEMPLATES[template])}`);
    else lines.push(`${id}: custom prompt template ${JSON.stringify(template)}`);
    if (options.extract_from_prose === true) lines.push(`${id}: answers without \\boxed{} are graded by the final answer their prose states`);
  }
  return lines;
}

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let options: CliOptions;
  try {
    options = parseArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`gem-ts eval: ${e.message}\nRun gem-ts eval --help for the options.`);
    return 2;
  }
  const say = (line: string) => process.stderr.write(`gem-ts eval: ${line}\n`);
  const { quiet, ...evalOptions } = options;
  // Said even with --quiet: it decides what the scores mean.
  for (const line of templateLines(options.envIds, options.envOptions ?? {})) say(line);
  // Ctrl-C stops cleanly: in-flight episodes are cancelled, the summary of what finished is written.
  const interrupt = new AbortController();
  const onSigint = () => {
    say('interrupted; writing the summary of the finished episodes (Ctrl-C again to quit at once)');
    process.off('SIGINT', onSigint);
    interrupt.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  let result;
  try {
    result = await evaluate({ ...evalOptions, signal: interrupt.signal, onEvent: quiet ? undefined : progressReporter({ write: say }) });
  } catch (e) {
    // Settings problems (unknown env id, bad option or wrapper, a transcript of another run) come before any request.
    if (isGemError(e)) {
      say(inLanguage(e.message, e.data, 'cli'));
      return 2;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }
  console.log(result.markdown);
  console.log(`\nTranscripts and summary: ${options.outDir}`);
  if (result.complete) return 0;
  if (interrupt.signal.aborted) {
    say(`${result.records.length} of ${result.planned} episodes finished; re-run the same command to resume.`);
    return 130;
  }
  const endpointFailed = result.errors.some((e) => e.code === 'ENDPOINT_ERROR');
  const first = result.errors[0];
  say(
    `${result.records.length} of ${result.planned} episodes finished; ${result.errors.length} failed` +
      (first ? ` (first: ${first.env_id} seed ${first.seed}: ${first.message})` : '') +
      '.',
  );
  if (endpointFailed) say(`the endpoint failed; check --base-url, --model and the server, then re-run to resume.`);
  return endpointFailed ? 3 : 1;
}
