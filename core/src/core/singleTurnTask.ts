/**
 * Base for single-turn tasks (GEM's dataset envs and reasoning-gym envs): reset shows one problem,
 * the one step grades the answer and returns TERMINAL_STATE with both flags set. A subclass gives
 * `pick` (which problem this reset shows), `prompt` (its text) and `grade` (the reward for the
 * answer); the base keeps the current problem, the sequential pass over the problems and spawn.
 *
 * Every subclass reads the same reset choices: `reset({options: {idx}})` (readIdxOption), a seed,
 * or neither, which takes the next problem of a pass (`nextInPass`).
 */
import { Hints } from './codeHint.ts';
import type { Env, Info, ResetOptions, ResetResult, SpawnOptions, StepResult } from './env.ts';
import { TERMINAL_STATE } from './env.ts';
import { GemError } from './errors.ts';
import type { EndsOnEveryStep } from './orderEnforcing.ts';
import type { EnvSpec } from './spec.ts';

export interface Graded {
  reward: number;
  info: Info;
}

/** A problem and where it comes from (a row index, a generator's key). */
export interface Picked<P, K> {
  index: K;
  problem: P;
}

/** Where the sequential pass stands: `epoch` counts the passes completed. */
export interface Pass {
  epoch: number;
  position: number;
}

export abstract class SingleTurnTask<P, K = number> implements Env<string, string>, EndsOnEveryStep {
  spec?: EnvSpec;
  readonly stepEndsEpisode = true;
  /** The problem of the current episode; undefined before the first reset. */
  protected current?: Picked<P, K>;
  /** The current problem has had its one step. */
  private answered = false;
  protected pass: Pass = { epoch: 0, position: 0 };

  get unwrapped(): Env<unknown, unknown> {
    return this as unknown as Env<unknown, unknown>;
  }

  /** The problem this reset shows; throws INDEX_OUT_OF_RANGE / INVALID_OPTIONS for bad reset options. */
  protected abstract pick(opts: ResetOptions): Picked<P, K> | Promise<Picked<P, K>>;
  protected abstract prompt(problem: P): string;
  protected abstract grade(action: string, problem: P, index: K): Graded | Promise<Graded>;
  abstract sampleRandomAction(): string;
  /** A fresh env over the same data: seeded with `seed`, or continuing this env's random stream. */
  protected abstract fork(seed: number | undefined): SingleTurnTask<P, K>;

  /** The position of the next problem of the sequential pass over `size`; past the last, a new epoch. */
  protected nextInPass(size: number): Pass {
    if (this.pass.position >= size) this.pass = { epoch: this.pass.epoch + 1, position: 0 };
    return { epoch: this.pass.epoch, position: this.pass.position++ };
  }

  async reset(opts: ResetOptions = {}): Promise<ResetResult> {
    const picked = await this.pick(opts);
    this.current = picked;
    this.answered = false;
    return { observation: this.prompt(picked.problem), info: {} };
  }

  async step(action: string): Promise<StepResult> {
    const { index, problem } = this.current!;
    this.answered = true;
    const { reward, info } = await this.grade(typeof action === 'string' ? action : String(action), problem, index);
    return { observation: TERMINAL_STATE, reward, terminated: true, truncated: true, info };
  }

  /** The current problem while it is unanswered (GEM's get_state). */
  protected get open(): Picked<P, K> | undefined {
    return this.answered ? undefined : this.current;
  }

  async close(): Promise<void> {}

  /**
   * GEM's spawn: a copy over the same data. With `sameState` the copy answers the parent's current
   * problem (group rollouts); without a seed it continues the parent's pass.
   */
  spawn(opts: SpawnOptions = {}): Env<string, string> {
    const copy = this.fork(opts.seed);
    copy.spec = this.spec;
    if (opts.seed === undefined) copy.pass = { ...this.pass };
    if (opts.sameState && this.open) copy.current = this.current;
    return copy;
  }

  toString(): string {
    return `<${this.spec?.id ?? this.constructor.name}>`;
  }
}

/**
 * The `idx` reset option (GEM's `reset(idx=…)`), checked against the number of problems; the only
 * reset option that problem-set envs take.
 */
export function readIdxOption(opts: ResetOptions, size: number, who: string): number | undefined {
  const { idx, ...unknown } = opts.options ?? {};
  const extra = Object.keys(unknown);
  if (extra.length) {
    const hints = new Hints();
    const take = hints.add({ kind: 'reset', options: { idx: { code: 'i' } } });
    throw new GemError('INVALID_OPTIONS', `Unknown reset option(s) ${extra.map((k) => `'${k}'`).join(', ')}; ${who} take only 'idx': ${take}.`, {
      options: extra,
      hints: hints.list,
    });
  }
  if (idx === undefined || idx === null) return undefined;
  if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || idx >= size) {
    throw new GemError('INDEX_OUT_OF_RANGE', `reset option 'idx' must be an integer in [0, ${size - 1}], got ${JSON.stringify(idx)}.`, { idx, size });
  }
  return idx;
}
