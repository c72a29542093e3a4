/**
 * The single-turn dataset env that GEM's math, code and QA envs share (core/singleTurnTask.ts): a
 * subclass turns a row into its problem (`prepare`), shows it (`prompt`) and grades the answer.
 *
 * Which problem a reset shows (GEM's rules, with a per-instance PRNG instead of global seeding):
 * - `reset({options: {idx}})`: problem `idx` of the dataset, in file order;
 * - `reset({seed})`: a problem drawn uniformly with that seed (a pure function of the seed);
 * - `reset()`: the next problem of a pass over the dataset, shuffled with the env's seed unless the
 *   env is an evaluation set; each new pass reshuffles with seed + pass number.
 */
import type { ResetOptions } from '../core/env.ts';
import { GemError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { SingleTurnTask, readIdxOption, type Picked } from '../core/singleTurnTask.ts';
import type { DatasetRow } from './datasetRegistry.ts';
import type { DatasetSource } from './datasetSource.ts';
import { z } from 'zod';
import { optionAttributes, type AttributeTable } from '../core/envAttributes.ts';

export { readIdxOption, type Graded } from '../core/singleTurnTask.ts';

export interface DatasetEnvConfig {
  source: DatasetSource;
  /** Seeds the shuffle of the sequential pass and the draws of `reset({seed})`. GEM's default is 0. */
  seed: number;
  /** Evaluation sets keep the file order for sequential resets. */
  shuffle: boolean;
}

export abstract class DatasetEnv<P> extends SingleTurnTask<P> {
  protected rows?: readonly DatasetRow[];
  private readonly rng: Rng;
  /** The shuffled order of the current pass (computed when the pass starts). */
  private order?: { epoch: number; ids: number[] };

  constructor(protected readonly config: DatasetEnvConfig) {
    super();
    this.rng = new Rng(config.seed);
  }

  /** Turns a raw row into the env's problem; throws DATASET_INVALID when a needed column is missing. */
  protected abstract prepare(row: DatasetRow, index: number): P;
  /** A fresh env with the same configuration and data source. */
  protected abstract clone(seed: number): DatasetEnv<P>;

  /** The dataset's rows, read on first use. */
  protected async loadRows(): Promise<readonly DatasetRow[]> {
    this.rows ??= await this.config.source.rows();
    return this.rows;
  }

  private nextSequential(n: number): number {
    const { epoch, position } = this.nextInPass(n);
    if (!this.config.shuffle) return position;
    if (this.order?.epoch !== epoch) {
      const ids = Array.from({ length: n }, (_, i) => i);
      this.order = { epoch, ids: new Rng(this.config.seed + epoch).shuffle(ids) };
    }
    return this.order.ids[position];
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

  protected async pick(opts: ResetOptions): Promise<Picked<P, number>> {
    const rows = await this.loadRows();
    const index = this.pickIndex(rows.length, opts);
    return { index, problem: this.prepare(rows[index], index) };
  }

  protected fork(seed: number | undefined): DatasetEnv<P> {
    const copy = this.clone(seed ?? this.config.seed);
    copy.rows = this.rows;
    if (seed === undefined) {
      copy.rng.setState(this.rng.getState());
      copy.order = this.order;
    }
    return copy;
  }

  /** GEM's get_state/set_state: the current problem's index, to rebuild an episode elsewhere. */
  getState(): { index: number } | undefined {
    return this.open ? { index: this.open.index } : undefined;
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
      epoch: { schema: z.number(), get: () => this.pass.epoch },
      dataset: { schema: z.unknown(), get: () => this.loadRows() },
    };
  }

  /** A gold field written by a client: the current problem with `change` applied; RESET_NEEDED before a reset. */
  protected changeProblem(name: string, change: (problem: P) => P): void {
    if (!this.current) throw new GemError('RESET_NEEDED', `'${name}' belongs to the current problem: reset() first, then set it.`);
    this.current = { index: this.current.index, problem: change(this.current.problem) };
  }
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
