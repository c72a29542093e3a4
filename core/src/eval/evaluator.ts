/**
 * Evaluate a model behind an OpenAI-compatible endpoint on GEM envs: `episodes` seeded episodes
 * (seeds seed … seed + episodes − 1) of every env id, at most `concurrency` at a time, each played by
 * runEpisode. With an output folder, finished episodes are appended to transcripts.jsonl as they end
 * and skipped on a re-run, and summary.json / summary.md are written at the end (also when the run
 * stops early, marked incomplete).
 *
 * Dataset envs (math, code, QA, eval:*) are played by problem number: episode seed k shows problem k
 * (reset option `idx`), so seeds S … S + N − 1 cover N problems once each, in file order, instead of
 * seeded draws that repeat problems; `episodes: 'all'` plays every problem from S on.
 *
 * Everything that can be wrong with the settings (unknown env id, bad option, bad wrapper stack) is
 * checked before the first request. An episode that fails (the endpoint gave up after its retries, an
 * env or tool fault) is recorded as an error, not as a finished episode, so a re-run retries it; once
 * more than `maxEpisodeErrors` episodes have failed the run stops and cancels what is in flight.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Env, ResetOptions } from '../core/env.ts';
import { DatasetEnv } from '../data/datasetEnv.ts';
import { GemError, isGemError } from '../core/errors.ts';
import { make } from '../envs/defaultRegistry.ts';
import { parseWrapperNames } from '../registry/wrapperStack.ts';
import { getWrapperDefinition, prepareWrappers } from '../envs/defaultWrappers.ts';
import '../envs/index.ts';
import { ChatClient, normaliseBaseUrl, type SamplingOptions } from './chatClient.ts';
import { summariseRecords, metricsTable, type EnvMetrics } from './metrics.ts';
import { runEpisode } from './runEpisode.ts';
import { EVAL_MODES, type EpisodeRecord, type EvalMode } from './transcript.ts';
import { TRANSCRIPT_FILE, TranscriptWriter, episodeKey, loadTranscripts } from './transcriptStore.ts';

export interface EvalOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  envIds: readonly string[];
  /** Per env id (default 10); 'all' plays every problem of dataset envs. */
  episodes?: number | 'all';
  /** First seed (default 0). */
  seed?: number;
  /** Episodes in flight at once (default 8). */
  concurrency?: number;
  mode?: EvalMode;
  system?: string;
  /** Model turns per episode before the evaluator stops it (default 100). */
  maxTurns?: number;
  sampling?: SamplingOptions;
  /** GEM wrapper names applied to every env, innermost first (tool, limit, tracking wrappers). */
  wrappers?: string | readonly string[];
  wrapperOptions?: Record<string, unknown>;
  /** Options for every env id (e.g. max_turns). */
  envOptions?: Record<string, unknown>;
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseMs?: number;
  extraBody?: Record<string, unknown>;
  /** Folder for transcripts.jsonl, summary.json and summary.md; nothing is written without it. */
  outDir?: string;
  /** Failed episodes tolerated before the run stops (default 0: the first failure stops it). */
  maxEpisodeErrors?: number;
  onEvent?: (event: EvalEvent) => void;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export interface EpisodeError {
  env_id: string;
  seed: number;
  code: string;
  message: string;
}

export type EvalEvent =
  | { type: 'start'; total: number; skipped: number; dropped: number }
  | { type: 'episode'; record: EpisodeRecord; done: number; total: number }
  | { type: 'error'; error: EpisodeError; done: number; total: number };

export interface EvalResult {
  metrics: EnvMetrics[];
  /** Every finished episode of the planned (env id, seed) pairs, earlier runs' included. */
  records: EpisodeRecord[];
  /** Episodes found finished in the output folder and not played again. */
  skipped: number;
  errors: EpisodeError[];
  /** Episodes planned, over every env id. */
  planned: number;
  /** Every planned episode finished. */
  complete: boolean;
  markdown: string;
}

interface Settings {
  /** undefined: 'all' (dataset envs only). */
  episodes: number | undefined;
  seed: number;
  concurrency: number;
  mode: EvalMode;
  maxTurns: number;
  maxEpisodeErrors: number;
  wrapperNames: string[];
}

function positiveInt(name: string, v: number, min = 1): number {
  if (!Number.isInteger(v) || v < min) throw new GemError('INVALID_OPTIONS', `${name} must be an integer >= ${min}, got ${v}`);
  return v;
}

/** The user's wrappers plus the mode's observation wrapper, in the factory's order (tracking stays outermost). */
function wrapperStack(wrappers: EvalOptions['wrappers'], mode: EvalMode): string[] {
  const names = parseWrapperNames(wrappers);
  for (const n of names) {
    if (getWrapperDefinition(n).kind === 'observation') {
      throw new GemError(
        'INVALID_WRAPPER',
        `'${n}' is an observation wrapper; the evaluator builds the prompt itself. Choose how with the mode ` +
          `(${EVAL_MODES.join(', ')}) instead.`,
      );
    }
  }
  if (mode === 'chat') return names;
  const tracking = names.filter((n) => getWrapperDefinition(n).kind === 'tracking');
  return [...names.filter((n) => !tracking.includes(n)), mode, ...tracking];
}

function checkSettings(o: EvalOptions): Settings {
  if (!o.envIds.length) throw new GemError('INVALID_OPTIONS', 'no env ids to evaluate');
  if (!o.model) throw new GemError('INVALID_OPTIONS', 'a model name is required');
  const mode = o.mode ?? 'chat';
  if (!EVAL_MODES.includes(mode)) throw new GemError('INVALID_OPTIONS', `mode must be one of ${EVAL_MODES.join(', ')}, got '${mode}'`);
  const s = o.sampling ?? {};
  if (s.temperature !== undefined && !(s.temperature >= 0)) throw new GemError('INVALID_OPTIONS', `temperature must be >= 0, got ${s.temperature}`);
  if (s.topP !== undefined && !(s.topP > 0 && s.topP <= 1)) throw new GemError('INVALID_OPTIONS', `top_p must be in (0, 1], got ${s.topP}`);
  if (s.maxTokens !== undefined) positiveInt('max_tokens', s.maxTokens);
  return {
    episodes: o.episodes === 'all' ? undefined : positiveInt('episodes', o.episodes ?? 10),
    seed: positiveInt('seed', o.seed ?? 0, 0),
    concurrency: positiveInt('concurrency', o.concurrency ?? 8),
    mode,
    maxTurns: positiveInt('max_turns', o.maxTurns ?? 100),
    maxEpisodeErrors: positiveInt('max_episode_errors', o.maxEpisodeErrors ?? 0, 0),
    wrapperNames: wrapperStack(o.wrappers, mode),
  };
}

/** Sampling settings under the request's own (snake_case) names, for summary.json. */
function samplingFields(s: SamplingOptions = {}): Record<string, unknown> {
  return { temperature: s.temperature, top_p: s.topP, max_tokens: s.maxTokens, stop: s.stop };
}

/** Keys sorted at every depth, so equal settings always hash alike. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** Everything that changes what an episode looks like; not seeds, concurrency, timeouts or the URL. */
export function runKeyOf(o: EvalOptions, s: Settings): string {
  const fields = {
    model: o.model,
    mode: s.mode,
    system: o.system ?? null,
    max_turns: s.maxTurns,
    sampling: o.sampling ?? {},
    wrappers: s.wrapperNames,
    wrapper_options: o.wrapperOptions ?? {},
    env_options: o.envOptions ?? {},
    extra_body: o.extraBody ?? {},
  };
  return createHash('sha256').update(JSON.stringify(canonical(fields))).digest('hex').slice(0, 16);
}

/** A dataset env's problem count, read from the range error of an impossible `idx`. */
async function datasetSize(env: Env<unknown, string>): Promise<number> {
  try {
    await env.reset({ options: { idx: Number.MAX_SAFE_INTEGER } });
  } catch (e) {
    const size = isGemError(e) && e.code === 'INDEX_OUT_OF_RANGE' ? (e.data as { size?: unknown }).size : undefined;
    if (typeof size === 'number') return size;
    throw e;
  }
  throw new GemError('INTERNAL', 'a dataset env accepted an impossible problem index');
}

interface EnvPlan {
  envId: string;
  /** Seeds (dataset envs: problem numbers) to play. */
  seeds: number[];
  byIndex: boolean;
}

/**
 * Build each env id once to check it (unknown ids, bad options, missing datasets fail here, before any
 * request) and work out its seeds.
 */
async function planEnvs(o: EvalOptions, s: Settings, wrap: (env: Env<unknown, string>) => Env<unknown, string>): Promise<EnvPlan[]> {
  const plans: EnvPlan[] = [];
  for (const envId of o.envIds) {
    const env = wrap(make(envId, o.envOptions ?? {}));
    try {
      const byIndex = env.unwrapped instanceof DatasetEnv;
      let count = s.episodes;
      if (byIndex) {
        const size = await datasetSize(env);
        if (s.seed >= size) throw new GemError('INVALID_OPTIONS', `${envId} has ${size} problems; seed ${s.seed} is past the last one (${size - 1}).`);
        count ??= size - s.seed;
        if (s.seed + count > size) {
          throw new GemError(
            'INVALID_OPTIONS',
            `${envId} has ${size} problems (0–${size - 1}); seeds ${s.seed}–${s.seed + count - 1} go past the end. ` +
              `Use ${size - s.seed} episodes or 'all'.`,
          );
        }
      } else if (count === undefined) {
        throw new GemError('INVALID_OPTIONS', `episodes 'all' needs a dataset env; ${envId} generates its episodes, so give a number.`);
      }
      plans.push({ envId, seeds: Array.from({ length: count }, (_, i) => s.seed + i), byIndex });
    } finally {
      await env.close();
    }
  }
  return plans;
}

export async function evaluate(o: EvalOptions): Promise<EvalResult> {
  const s = checkSettings(o);
  normaliseBaseUrl(o.baseUrl);
  const wrap = prepareWrappers(s.wrapperNames, o.wrapperOptions ?? {}) as (env: Env<unknown, string>) => Env<unknown, string>;
  const envOptions = o.envOptions ?? {};
  const plans = await planEnvs(o, s, wrap);
  const runKey = runKeyOf(o, s);

  let writer: TranscriptWriter | undefined;
  const finished = new Map<string, EpisodeRecord>();
  let dropped = 0;
  if (o.outDir) {
    await mkdir(o.outDir, { recursive: true });
    const path = join(o.outDir, TRANSCRIPT_FILE);
    const loaded = await loadTranscripts(path, runKey);
    dropped = loaded.dropped;
    for (const r of loaded.records) finished.set(episodeKey(r.env_id, r.seed), r);
    writer = new TranscriptWriter(path);
  }

  // Seed-major order, so a stopped run has covered every env id about equally.
  const planned: Array<{ envId: string; seed: number; byIndex: boolean }> = [];
  const longest = Math.max(...plans.map((p) => p.seeds.length));
  for (let i = 0; i < longest; i++) {
    for (const p of plans) if (i < p.seeds.length) planned.push({ envId: p.envId, seed: p.seeds[i], byIndex: p.byIndex });
  }
  const queue = planned.filter((p) => !finished.has(episodeKey(p.envId, p.seed)));
  const skipped = planned.length - queue.length;
  const total = planned.length;
  o.onEvent?.({ type: 'start', total, skipped, dropped });

  const client = new ChatClient({
    baseUrl: o.baseUrl,
    model: o.model,
    apiKey: o.apiKey,
    timeoutMs: o.timeoutMs,
    maxRetries: o.maxRetries,
    retryBaseMs: o.retryBaseMs,
    extraBody: o.extraBody,
    fetch: o.fetch,
  });
  const stop = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
  const errors: EpisodeError[] = [];
  const settings = { model: o.model, mode: s.mode, system: o.system, maxTurns: s.maxTurns, sampling: o.sampling ?? {}, runKey };
  let done = skipped;

  const worker = async () => {
    while (!signal.aborted) {
      const job = queue.shift();
      if (!job) return;
      let env: Env<unknown, string> | undefined;
      try {
        env = wrap(make(job.envId, envOptions));
        const reset: ResetOptions & { seed: number } = job.byIndex ? { seed: job.seed, options: { idx: job.seed } } : { seed: job.seed };
        const record = await runEpisode(env, client, job.envId, reset, settings, signal);
        finished.set(episodeKey(job.envId, job.seed), record);
        await writer?.append(record);
        o.onEvent?.({ type: 'episode', record, done: ++done, total });
      } catch (e) {
        if (signal.aborted) return; // cancelled, not failed: a re-run plays it
        const error = { env_id: job.envId, seed: job.seed, code: isGemError(e) ? e.code : 'INTERNAL', message: (e as Error).message };
        errors.push(error);
        o.onEvent?.({ type: 'error', error, done, total });
        if (errors.length > s.maxEpisodeErrors) stop.abort(new GemError('ENDPOINT_ERROR', 'evaluation stopped'));
      } finally {
        await env?.close().catch(() => undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(s.concurrency, Math.max(queue.length, 1)) }, worker));
  await writer?.flush();

  const records = planned.flatMap((p) => finished.get(episodeKey(p.envId, p.seed)) ?? []);
  const metrics = summariseRecords(o.envIds, records);
  const complete = records.length === planned.length;
  const markdown = metricsTable(metrics);
  if (o.outDir) {
    const summary = {
      version: 1,
      complete,
      model: o.model,
      base_url: normaliseBaseUrl(o.baseUrl),
      mode: s.mode,
      run_key: runKey,
      env_ids: o.envIds,
      episodes_per_env: Object.fromEntries(plans.map((p) => [p.envId, p.seeds.length])),
      first_seed: s.seed,
      /** Env ids whose seeds are problem numbers (dataset envs). */
      by_index: plans.filter((p) => p.byIndex).map((p) => p.envId),
      settings: {
        system: o.system ?? null,
        max_turns: s.maxTurns,
        sampling: samplingFields(o.sampling),
        wrappers: s.wrapperNames,
        wrapper_options: o.wrapperOptions ?? {},
        env_options: envOptions,
        extra_body: o.extraBody ?? {},
      },
      finished: records.length,
      errors,
      metrics,
      written_at: new Date().toISOString(),
    };
    await writeFile(join(o.outDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
    const note = complete ? '' : `\n\nIncomplete: ${records.length} of ${planned.length} episodes finished; re-run the same command to finish.\n`;
    await writeFile(
      join(o.outDir, 'summary.md'),
      `# ${o.model} (${s.mode} mode, seeds from ${s.seed})\n\n${markdown}\n${note}`,
    );
  }
  return { metrics, records, skipped, errors, planned: planned.length, complete, markdown };
}
