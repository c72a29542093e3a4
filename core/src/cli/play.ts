/**
 * `gem-ts play <id> [--seed N] [--option key=value]…`: a person plays one episode in the terminal.
 * Each turn shows the observation and `info.suffix` (the board or prompt the model would see), then reads
 * one line from stdin as the action; a line without `\boxed{` is boxed for you, so typing `A C` is the
 * same as typing `\boxed{A C}`. Multi-agent games name the player to move (`info.player`) and every
 * player's reward, so several people can take turns at one terminal. Type /quit to stop.
 */
import { createInterface } from 'node:readline';
import { isGemError } from '../core/errors.ts';
import { inLanguage } from '../core/codeHint.ts';
import type { Env, Info } from '../core/env.ts';
import { make } from '../envs/defaultRegistry.ts';
import '../envs/index.ts';

const USAGE = 'usage: gem-ts play <id> [--seed N] [--option key=value]...';

interface PlayArgs {
  id: string;
  seed?: number;
  options: Record<string, unknown>;
}

class UsageError extends Error {}

/** JSON when it parses (numbers, booleans, lists), otherwise the raw string. */
function optionValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseArgs(args: string[]): PlayArgs {
  let id: string | undefined;
  let seed: number | undefined;
  const options: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--seed') {
      const v = args[++i];
      if (v === undefined || !/^-?\d+$/.test(v)) throw new UsageError(`--seed needs an integer, got ${v ?? 'nothing'}`);
      seed = Number(v);
    } else if (a === '--option' || a === '-o') {
      const kv = args[++i];
      const eq = kv?.indexOf('=') ?? -1;
      if (!kv || eq <= 0) throw new UsageError(`--option needs key=value, got ${kv ?? 'nothing'}`);
      options[kv.slice(0, eq)] = optionValue(kv.slice(eq + 1));
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown flag ${a}`);
    } else if (id === undefined) {
      id = a;
    } else {
      throw new UsageError(`unexpected argument ${a}`);
    }
  }
  if (!id) throw new UsageError('missing env id');
  return { id, seed, options };
}

/** The text a model would see this turn: the observation, then the suffix if the env gives one. */
function screen(observation: unknown, info: Info): string {
  const text = typeof observation === 'string' ? observation : JSON.stringify(observation, null, 2);
  return typeof info.suffix === 'string' && info.suffix ? `${text}\n\n${info.suffix}` : text;
}

function formatReward(r: number): string {
  return Number.isInteger(r) ? r.toFixed(1) : String(Number(r.toFixed(4)));
}

/** Every player's reward for the step, from a multi-agent env's info, e.g. "X: 1.0, O: -1.0". */
function playerRewards(info: Info): string | undefined {
  const rewards = info.rewards;
  if (!rewards || typeof rewards !== 'object') return undefined;
  return Object.entries(rewards as Record<string, number>)
    .map(([p, r]) => `${p}: ${formatReward(r)}`)
    .join(', ');
}

async function playEpisode(env: Env<unknown, string>, seed: number | undefined, lines: AsyncIterator<string>): Promise<number> {
  const say = (text: string) => process.stdout.write(`${text}\n`);
  const echo = !process.stdin.isTTY;
  let { observation, info } = await env.reset(seed === undefined ? {} : { seed });
  say(screen(observation, info));
  let total = 0;
  for (let turn = 1; ; turn++) {
    const who = typeof info.player === 'string' ? `${info.player} ` : '';
    process.stdout.write(`\n${who}> `);
    const next = await lines.next();
    if (next.done) {
      say('\n(input ended before the episode did)');
      return 0;
    }
    const line = next.value.trim();
    if (echo) say(line);
    if (line === '/quit') {
      say('(stopped)');
      return 0;
    }
    const r = await env.step(line.includes('\\boxed{') ? line : `\\boxed{${line}}`);
    total += r.reward;
    ({ observation, info } = r);
    const each = playerRewards(info);
    const over = r.terminated || r.truncated;
    // The feedback, the reward, then the board or prompt for the next turn (not after the last one).
    say(`\n${typeof observation === 'string' ? observation : JSON.stringify(observation)}`);
    const totals = info.returns && typeof info.returns === 'object' ? playerRewards({ rewards: info.returns }) : undefined;
    // Multi-agent games: every player's reward and running total (the scalar is only the actor's).
    say(each && totals ? `[rewards ${each}; totals ${totals}]` : `[reward ${formatReward(r.reward)}, total ${formatReward(total)}]`);
    if (!over && typeof info.suffix === 'string' && info.suffix) say(`\n${info.suffix}`);
    if (over) {
      const how = r.truncated ? 'was cut off at the turn limit' : 'is over';
      say(`\nThe episode ${how} after ${turn} turns; ${totals ? `returns ${totals}` : `return ${formatReward(total)}`}.`);
      return 0;
    }
  }
}

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let parsed: PlayArgs;
  try {
    parsed = parseArgs(args);
  } catch (e) {
    console.error(`gem-ts play: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  let env: Env<unknown, string>;
  try {
    env = make<unknown, string>(parsed.id, parsed.options);
  } catch (e) {
    if (isGemError(e)) {
      console.error(`gem-ts play: ${inLanguage(e.message, e.data, 'cli')}`);
      return 2;
    }
    throw e;
  }
  const rl = createInterface({ input: process.stdin, terminal: false });
  try {
    return await playEpisode(env, parsed.seed, rl[Symbol.asyncIterator]());
  } finally {
    rl.close();
    await env.close();
  }
}
