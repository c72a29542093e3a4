/**
 * The single-turn dataset env that GEM's math, code and QA envs share: reset shows one problem, the
 * one step grades the answer and returns TERMINAL_STATE with both flags set.
 *
 * Which problem a reset shows (GEM's rules, with a per-instance PRNG instead of global seeding):
 * - `reset({options: {idx}})`: problem `idx` of the dataset, in file order;
 * - `reset({seed})`: a problem drawn uniformly with that seed (a pure function of the seed);
 * - `reset()`: the next problem of a pass over the dataset, shuffled with the env's seed unless the
 *   env is an evaluation set; each new pass reshuffles with seed + pass number.
 */
import type { Env, Info, ResetOptions, ResetResult, SpawnOptions, StepResult } from '../core/env.ts';
import { TERMINAL_STATE } from '../core/env.ts';
import { Hints } from '../core/codeHint.ts';
import { EnvClosedError, GemError, ResetNeededError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import type { EnvSpec } from '../core/spec.ts';
import type { DatasetRow } from './datasetRegistry.ts';
import type { DatasetSource } from './datasetSource.ts';
import { z } from 'zod';
import { optionAttributes, type AttributeTable } from '../core/envAttributes.ts';

export interface Graded {
  reward: number;
  info: Info;
}

export interface DatasetEnvConfig {
  source: DatasetSource;
  /** Seeds the shuffle of the sequential pass and the draws of `reset({seed})`. GEM's default is 0. */
  seed: number;
  /** Evaluation sets keep the file order for sequential resets. */
  shuffle: boolean;
}

interface Pass {
  number: number;
  order: number[] | undefined;
  position: number;
}

export abstract class DatasetEnv<P> implements Env<string, string> {
  spec?: EnvSpec;
  protected rows?: readonly DatasetRow[];
  /** The problem of the current episode; undefined before the first reset. */
  protected current?: { index: number; problem: P };
  private done = true;
  private closed = false;
  private pass: Pass = { number: 0, order: undefined, position: 0 };
  private readonly rng: Rng;

  constructor(protected readonly config: DatasetEnvConfig) {
    this.rng = new Rng(config.seed);
  }

  get unwrapped(): Env<unknown, unknown> {
    return this as unknown as Env<unknown, unknown>;
  }

  /** Turns a raw row into the env's problem; throws DATASET_INVALID when a needed column is missing. */
  protected abstract prepare(row: DatasetRow, index: number): P;
  protected abstract prompt(problem: P): string;
  protected abstract grade(action: string, problem: P): Graded | Promise<Graded>;
  abstract sampleRandomAction(): string;
  /** A fresh env with the same configuration and data source. */
  protected abstract clone(seed: number): DatasetEnv<P>;

  /** The dataset's rows, read on first use. */
  protected async loadRows(): Promise<readonly DatasetRow[]> {
    this.rows ??= await this.config.source.rows();
    return this.rows;
  }

  private nextSequential(n: number): number {
    if (this.pass.position >= n) this.pass = { number: this.pass.number + 1, order: undefined, position: 0 };
    if (this.config.shuffle && this.pass.order === undefined) {
      const ids = Array.from({ length: n }, (_, i) => i);
      this.pass.order = new Rng(this.config.seed + this.pass.number).shuffle(ids);
    }
    const at = this.pass.position++;
    return this.pass.order ? this.pass.order[at] : at;
  }

  private pickIndex(n: number, opts: ResetOptions): number {
    const idx = readIdxOption(opts, n, 'dataset envs');
    if (idx !== undefined) return idx;
    if (opts.seed !== undefined) {
      this.rng.seed(opts.seed);
      return this.rng.int(0, n - 1);
    }
    return this.nextSequential(n);
  }

  async reset(opts: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError('reset');
    const rows = await this.loadRows();
    const index = this.pickIndex(rows.length, opts);
    const problem = this.prepare(rows[index], index);
    this.current = { index, problem };
    this.done = false;
    return { observation: this.prompt(problem), info: {} };
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError('step');
    if (this.done || !this.current) throw new ResetNeededError();
    this.done = true;
    const { reward, info } = await this.grade(typeof action === 'string' ? action : String(action), this.current.problem);
    return { observation: TERMINAL_STATE, reward, terminated: true, truncated: true, info };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /**
   * GEM's spawn: a copy over the same loaded data. With `sameState` the copy answers the parent's
   * current problem (group rollouts); otherwise it starts fresh, with `seed` if given.
   */
  spawn(opts: SpawnOptions = {}): Env<string, string> {
    const copy = this.clone(opts.seed ?? this.config.seed);
    copy.spec = this.spec;
    copy.rows = this.rows;
    if (opts.seed === undefined) {
      copy.rng.setState(this.rng.getState());
      copy.pass = { ...this.pass };
    }
    if (opts.sameState && this.current && !this.done) {
      copy.current = this.current;
      copy.done = false;
    }
    return copy;
  }

  /** GEM's get_state/set_state: the current problem's index, to rebuild an episode elsewhere. */
  getState(): { index: number } | undefined {
    return this.current && !this.done ? { index: this.current.index } : undefined;
  }

  /**
   * GEM's public attributes of a dataset env (core/envAttributes.ts): the options (read-only: they
   * shaped the data source at construction), the current question and the rows; subclasses add
   * their gold field (`answer`, `tests`) as read/write.
   */
  envAttributes(): AttributeTable {
    const self = this as unknown as { options?: Record<string, unknown> };
    const question = { schema: z.string(), get: () => (this.current ? this.prompt(this.current.problem) : null) };
    return {
      ...(self.options ? optionAttributes(self as { options: Record<string, unknown> }, false) : {}),
      question,
      first_obs: question,
      epoch: { schema: z.number(), get: () => this.pass.number },
      dataset: { schema: z.unknown(), get: () => this.loadRows() },
    };
  }

  /** A gold field written by a client: the current problem with `change` applied; RESET_NEEDED before a reset. */
  protected changeProblem(name: string, change: (problem: P) => P): void {
    if (!this.current) throw new GemError('RESET_NEEDED', `'${name}' belongs to the current problem: reset() first, then set it.`);
    this.current = { index: this.current.index, problem: change(this.current.problem) };
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

/** A required text column of a row; numbers are stringified (GEM does the same for answers). */
export function requireText(row: DatasetRow, key: string, index: number): string {
  const value = row[key];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new GemError(
    'DATASET_INVALID',
    `Row ${index} has no text column '${key}' (columns: ${Object.keys(row).join(', ') || 'none'}). Set the key option to the right column.`,
    { index, key, columns: Object.keys(row) },
  );
}

/** Gold answers: a string, a number, or a list of them (any one counts). */
export function requireAnswers(row: DatasetRow, key: string, index: number): string[] {
  const value = row[key];
  const list = Array.isArray(value) ? value : [value];
  const out = list.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
  if (out.length === 0) {
    throw new GemError(
      'DATASET_INVALID',
      `Row ${index} has no usable answer in column '${key}' (columns: ${Object.keys(row).join(', ') || 'none'}).`,
      { index, key, columns: Object.keys(row) },
    );
  }
  return out;
}
