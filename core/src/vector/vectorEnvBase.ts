/**
 * What SyncVectorEnv, AsyncVectorEnv and EnvPool share: batch validation (misuse fails loudly with a
 * GemError code before any env is touched), per-env episode phases for the three autoreset modes,
 * seeding, and the row logic that turns one env's step into one row of a batch.
 *
 * An env with sync twins (resetSync/stepSync) is always run inline: there is nothing to overlap, and
 * skipping the promise is most of the speed. Only envs without twins (tool wrappers, worker-thread
 * proxies) differ between executors: run one after another (sync) or all at once (async, pool).
 */
import type { Env, Info, ResetResult, StepResult } from '../core/env.ts';
import { EnvClosedError, GemError, isGemError } from '../core/errors.ts';
import { Hints } from '../core/codeHint.ts';
import { pastEndStep, pastEndWarning, type PastEndPolicy } from '../core/pastEnd.ts';
import type { AutoresetMode, VectorEnv, VectorResetOptions, VectorResetResult, VectorStepResult } from './types.ts';
import { AUTORESET_MODES } from './types.ts';

/** Episode phase of one sub-env. */
const enum Phase {
  /** Never reset, or failed: only reset() is allowed. */
  NeedsReset = 0,
  Running = 1,
  /** Ended under `next_step`: its next step resets it and ignores the action. */
  AutoresetNext = 2,
  /** Ended under `disabled`: a step gets the past-end row (core/pastEnd.ts) or, strict, RESET_NEEDED. */
  Ended = 3,
}

/** Columns a row is written into: a batch being built, or an EnvPool's per-env slots. */
export interface RowSink {
  observations: string[];
  rewards: Float64Array;
  terminated: boolean[];
  truncated: boolean[];
  infos: Info[];
}

export interface VectorEnvInit {
  envs: Env<any, any>[];
  envIds?: string[];
  autoresetMode?: AutoresetMode;
  /** A step after an episode ended under `disabled`: answered (default) or refused (core/pastEnd.ts). */
  pastEnd?: PastEndPolicy;
  /** Closed after the envs (worker pools the vector env owns). */
  resources?: { close(): Promise<void> }[];
}

interface PreparedBatch<T> {
  indices: readonly number[];
  out: T;
  inlineRow: (i: number, k: number) => void;
  asyncRow: (i: number, k: number) => Promise<void>;
}

/** A macrotask turn: lets pending I/O (other clients' messages) and timers run first. */
/**
 * Sees a batch's rows [from, to) right after a slice wrote them, before the batch goes on (called only
 * for batches run in slices, in order, each row once). It may take the rows' strings and objects
 * away (the server encodes them into its reply as the batch runs, so they die young instead of
 * living, and being copied by the garbage collector, until the last slice); `rows` is the batch's
 * result, whose row count and per-row numbers stay as written.
 */
export type SliceSink = (rows: VectorStepResult, from: number, to: number) => void;

export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function emptyBatch(n: number): VectorStepResult {
  return {
    indices: [],
    observations: new Array<string>(n),
    rewards: new Float64Array(n),
    terminated: new Array<boolean>(n),
    truncated: new Array<boolean>(n),
    infos: new Array<Info>(n),
  };
}

/** An env failure tagged with the env index; the original code survives. */
export function envFailure(index: number, e: unknown): GemError {
  const message = e instanceof Error ? e.message : String(e);
  const code = isGemError(e) ? e.code : 'INTERNAL';
  return new GemError(code, `env ${index}: ${message}`, { index, cause: isGemError(e) ? e.toJSON() : message });
}

export abstract class VectorEnvBase implements VectorEnv {
  readonly numEnvs: number;
  readonly autoresetMode: AutoresetMode;
  readonly pastEnd: PastEndPolicy;
  readonly envIds: string[];
  private isClosed = false;
  /** Whether envs without sync twins step concurrently (async, pool) or in index order (sync). */
  protected abstract readonly concurrent: boolean;
  /** Batches of more rows than `sliceAbove` run in slices of `sliceRows` with a yield between (EnvPool). */
  protected readonly sliceAbove: number = Infinity;
  protected readonly sliceRows: number = Infinity;
  protected readonly envs: Env<any, any>[];
  /** 1 where the env has both sync twins. */
  protected readonly inline: Uint8Array;
  /** Number of envs without sync twins: when 0, every batch runs without a single await. */
  protected readonly asyncEnvCount: number;
  protected readonly phase: Uint8Array;
  /** 1 while an env has a step or reset in flight (and, in a pool, until recv returns its row). */
  protected readonly busy: Uint8Array;
  /** 1 once an env has been warned that it was stepped past its episode's end. */
  private readonly warnedPastEnd: Uint8Array;
  private readonly stamp: Uint32Array;
  private epoch = 0;
  private readonly allIndices: readonly number[];
  private readonly resources: { close(): Promise<void> }[];

  constructor(init: VectorEnvInit) {
    const n = init.envs.length;
    if (n === 0) throw new GemError('INVALID_OPTIONS', 'A vector env needs at least one env.');
    const mode = init.autoresetMode ?? 'same_step';
    if (!AUTORESET_MODES.includes(mode)) {
      throw new GemError('INVALID_OPTIONS', `autoreset mode '${mode}' is not one of ${AUTORESET_MODES.join(', ')}`);
    }
    this.envs = init.envs;
    this.numEnvs = n;
    this.autoresetMode = mode;
    this.pastEnd = init.pastEnd ?? 'answer';
    if (this.pastEnd !== 'answer' && this.pastEnd !== 'raise') {
      throw new GemError('INVALID_OPTIONS', `pastEnd '${String(this.pastEnd)}' is not 'answer' or 'raise'`);
    }
    this.envIds = init.envIds ?? init.envs.map((e) => e.spec?.id ?? e.toString());
    this.resources = init.resources ?? [];
    this.inline = new Uint8Array(n);
    let asyncCount = 0;
    for (let i = 0; i < n; i++) {
      const e = init.envs[i];
      if (e.stepSync && e.resetSync) this.inline[i] = 1;
      else asyncCount++;
    }
    this.asyncEnvCount = asyncCount;
    this.phase = new Uint8Array(n);
    this.busy = new Uint8Array(n);
    this.warnedPastEnd = new Uint8Array(n);
    this.stamp = new Uint32Array(n);
    this.allIndices = Object.freeze(Array.from({ length: n }, (_, i) => i));
  }

  describe(index = 0): string {
    return this.envAt(index).toString();
  }

  /** Sub-env i (its outermost wrapper). */
  envAt(index: number): Env<any, any> {
    this.checkIndex(index);
    return this.envs[index];
  }

  sampleRandomActions(indices?: number[]): string[] {
    const idx = this.batchIndices(indices, indices?.length ?? this.numEnvs, 'sampleRandomActions');
    return idx.map((i) => this.envs[i].sampleRandomAction() as string);
  }

  toString(): string {
    const kind = this.constructor.name;
    return `${kind}(${this.numEnvs} × ${this.describe(0)}, autoreset=${this.autoresetMode})`;
  }

  // ── validation ────────────────────────────────────────────────────────────────────────────────

  private checkIndex(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.numEnvs) {
      throw new GemError('INDEX_OUT_OF_RANGE', `env index ${i} is out of range: this vector env has ${this.numEnvs} envs (0–${this.numEnvs - 1})`, {
        index: i,
        numEnvs: this.numEnvs,
      });
    }
  }

  /** Indices of a batch: all envs, or a checked subset without duplicates. */
  protected batchIndices(indices: readonly number[] | undefined, count: number, what: string): readonly number[] {
    if (this.isClosed) throw new EnvClosedError(what);
    if (indices === undefined) {
      if (count !== this.numEnvs) {
        throw new GemError(
          'INVALID_ACTION_BATCH',
          `${what}: got ${count} actions for ${this.numEnvs} envs; give one per env, or the env indices they are for`,
          { expected: this.numEnvs, got: count },
        );
      }
      return this.allIndices;
    }
    if (!Array.isArray(indices)) throw new GemError('INVALID_ACTION_BATCH', `${what}: indices must be an array of env indices`);
    if (indices.length !== count) {
      throw new GemError('INVALID_ACTION_BATCH', `${what}: got ${count} actions for ${indices.length} indices`, {
        expected: indices.length,
        got: count,
      });
    }
    const epoch = this.nextEpoch();
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k];
      this.checkIndex(i);
      if (this.stamp[i] === epoch) throw new GemError('INVALID_ACTION_BATCH', `${what}: env index ${i} appears twice`, { index: i });
      this.stamp[i] = epoch;
    }
    return indices;
  }

  private nextEpoch(): number {
    this.epoch = (this.epoch + 1) >>> 0;
    if (this.epoch === 0) {
      this.stamp.fill(0);
      this.epoch = 1;
    }
    return this.epoch;
  }

  /** Every env in the batch must be idle and (for steps) inside an episode. */
  protected checkReady(indices: readonly number[], actions: readonly unknown[] | undefined): void {
    for (let k = 0; k < indices.length; k++) {
      const e = this.notReady(indices[k], actions !== undefined, actions?.[k]);
      if (e) throw e;
    }
  }

  /** Why env i cannot take this row now (busy; for a step: a non-string action, an ended episode), or undefined. */
  private notReady(i: number, stepping: boolean, action: unknown): GemError | undefined {
    if (this.busy[i]) return new GemError('ALREADY_PENDING', `env ${i} is still busy with an earlier step or reset`, { index: i });
    if (!stepping) return undefined;
    if (typeof action !== 'string') return new GemError('INVALID_ACTION_BATCH', `action for env ${i} is ${typeof action}, not a string`, { index: i });
    if (this.phase[i] === Phase.NeedsReset || (this.phase[i] === Phase.Ended && this.pastEnd === 'raise')) {
      const hints = new Hints();
      const how = this.autoresetMode === 'disabled' ? ` (autoreset is disabled: call ${hints.add({ kind: 'reset_envs', indices: [{ code: 'i' }] })} after an episode ends)` : '';
      return new GemError('RESET_NEEDED', `env ${i} needs a reset before it can step${how}`, { index: i, hints: hints.list });
    }
    return undefined;
  }

  // ── rows ──────────────────────────────────────────────────────────────────────────────────────

  private writeStep(s: StepResult, out: RowSink, k: number): void {
    out.observations[k] = s.observation;
    out.rewards[k] = s.reward;
    out.terminated[k] = s.terminated;
    out.truncated[k] = s.truncated;
    out.infos[k] = s.info;
  }

  /** The reset row of next_step autoreset: the action was ignored. */
  private writeAutoresetNext(i: number, r: ResetResult, out: RowSink, k: number): void {
    this.phase[i] = Phase.Running;
    out.observations[k] = r.observation;
    out.rewards[k] = 0;
    out.terminated[k] = false;
    out.truncated[k] = false;
    out.infos[k] = r.info;
  }

  /** Writes the step row; returns true when same_step autoreset must reset the env now. */
  private settle(i: number, s: StepResult, out: RowSink, k: number): boolean {
    this.writeStep(s, out, k);
    if (!s.terminated && !s.truncated) return false;
    if (this.autoresetMode === 'same_step') return true;
    this.phase[i] = this.autoresetMode === 'next_step' ? Phase.AutoresetNext : Phase.Ended;
    return false;
  }

  /** A step of an ended episode (autoreset disabled): not played; the first one of env i warns. */
  private writePastEnd(i: number, out: RowSink, k: number): void {
    const warn = this.warnedPastEnd[i] === 0;
    this.warnedPastEnd[i] = 1;
    this.writeStep(pastEndStep(warn ? pastEndWarning(i, this.envIds[i]) : undefined), out, k);
  }

  /** Same-step autoreset: the new episode's observation, the terminal one kept in the info. */
  private writeAutoresetSame(s: StepResult, r: ResetResult, out: RowSink, k: number): void {
    out.observations[k] = r.observation;
    // Copy, then add: V8 makes `{...info, key: v}` a slow path (microseconds per row).
    const info: Info = Object.assign({}, r.info);
    info.final_obs = s.observation;
    info.final_info = s.info;
    out.infos[k] = info;
  }

  protected stepRowSync(i: number, action: string, out: RowSink, k: number): void {
    const env = this.envs[i];
    try {
      if (this.phase[i] === Phase.AutoresetNext) return this.writeAutoresetNext(i, env.resetSync!(), out, k);
      if (this.phase[i] === Phase.Ended) return this.writePastEnd(i, out, k);
      const s = env.stepSync!(action);
      if (this.settle(i, s, out, k)) this.writeAutoresetSame(s, env.resetSync!(), out, k);
    } catch (e) {
      this.phase[i] = Phase.NeedsReset;
      throw envFailure(i, e);
    }
  }

  protected async stepRowAsync(i: number, action: string, out: RowSink, k: number): Promise<void> {
    const env = this.envs[i];
    try {
      if (this.phase[i] === Phase.AutoresetNext) return this.writeAutoresetNext(i, await env.reset(), out, k);
      if (this.phase[i] === Phase.Ended) return this.writePastEnd(i, out, k);
      const s = await env.step(action);
      if (this.settle(i, s, out, k)) this.writeAutoresetSame(s, await env.reset(), out, k);
    } catch (e) {
      this.phase[i] = Phase.NeedsReset;
      throw envFailure(i, e);
    }
  }

  /** Runs every row inline (all envs have twins); failures are collected and thrown after. */
  private runRowsInline(indices: readonly number[], inlineRow: (i: number, k: number) => void): void {
    let failures: GemError[] | undefined;
    for (let k = 0; k < indices.length; k++) {
      try {
        inlineRow(indices[k], k);
      } catch (e) {
        (failures ??= []).push(e as GemError);
      }
    }
    if (failures) throw combineFailures(failures);
  }

  /**
   * Runs inline rows in slices of `sliceRows`, yielding to the event loop between slices, so one huge
   * batch never holds the loop (other clients of a server, timers) for longer than one slice. The
   * envs stay busy until the last slice; a close in between ends the batch with ENV_CLOSED.
   */
  private async runRowsSliced(
    indices: readonly number[],
    inlineRow: (i: number, k: number) => void,
    onSlice?: (from: number, to: number) => void,
  ): Promise<void> {
    const failures: GemError[] = [];
    for (const i of indices) this.busy[i] = 1;
    try {
      for (let start = 0; start < indices.length; start += this.sliceRows) {
        if (start > 0) {
          await yieldToEventLoop();
          if (this.isClosed) throw new EnvClosedError('step');
        }
        const end = Math.min(indices.length, start + this.sliceRows);
        for (let k = start; k < end; k++) {
          try {
            inlineRow(indices[k], k);
          } catch (e) {
            failures.push(e as GemError);
          }
        }
        onSlice?.(start, end);
      }
    } finally {
      for (const i of indices) this.busy[i] = 0;
    }
    if (failures.length) throw combineFailures(failures);
  }

  /** Runs rows with envs that lack twins: in index order or concurrently; busy meanwhile. */
  private runRowsAsync(
    indices: readonly number[],
    inlineRow: (i: number, k: number) => void,
    asyncRow: (i: number, k: number) => Promise<void>,
  ): Promise<void> {
    const failures: GemError[] = [];
    for (const i of indices) this.busy[i] = 1;
    const done = this.concurrent
      ? this.runConcurrent(indices, inlineRow, asyncRow, failures)
      : this.runInOrder(indices, inlineRow, asyncRow, failures);
    return done.then(() => {
      for (const i of indices) this.busy[i] = 0;
      if (failures.length) throw combineFailures(failures);
    });
  }

  private async runInOrder(
    indices: readonly number[],
    inlineRow: (i: number, k: number) => void,
    asyncRow: (i: number, k: number) => Promise<void>,
    failures: GemError[],
  ): Promise<void> {
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k];
      try {
        if (this.inline[i]) inlineRow(i, k);
        else await asyncRow(i, k);
      } catch (e) {
        failures.push(e as GemError);
      }
    }
  }

  private async runConcurrent(
    indices: readonly number[],
    inlineRow: (i: number, k: number) => void,
    asyncRow: (i: number, k: number) => Promise<void>,
    failures: GemError[],
  ): Promise<void> {
    const pending: Promise<void>[] = [];
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k];
      try {
        if (this.inline[i]) inlineRow(i, k);
        else pending.push(asyncRow(i, k).catch((e) => void failures.push(e as GemError)));
      } catch (e) {
        failures.push(e as GemError);
      }
    }
    await Promise.all(pending);
  }

  // ── public API ────────────────────────────────────────────────────────────────────────────────

  step(actions: string[], indices?: number[]): Promise<VectorStepResult> {
    try {
      return this.runStep(actions, this.checkStep(actions, indices));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Steps a batch whose indices and readiness are checked; rows in the order of `idx`. `onSlice`, for
   * a batch run in slices, sees each slice's rows as soon as they are written (see SliceSink).
   */
  protected runStep(actions: readonly string[], idx: readonly number[], onSlice?: SliceSink): Promise<VectorStepResult> {
    const out = emptyBatch(idx.length);
    out.indices = idx as number[];
    if (this.asyncEnvCount === 0 && idx.length <= this.sliceAbove) {
      // The hot path: no closure, no await.
      this.stepInline(actions, idx, out);
      return Promise.resolve(out);
    }
    return this.runStepRows(actions, idx, out, onSlice);
  }

  private runStepRows(actions: readonly string[], idx: readonly number[], out: VectorStepResult, onSlice?: SliceSink): Promise<VectorStepResult> {
    const inlineRow = (i: number, k: number) => this.stepRowSync(i, actions[k], out, k);
    if (this.asyncEnvCount === 0) return this.runRowsSliced(idx, inlineRow, onSlice && ((from, to) => onSlice(out, from, to))).then(() => out);
    return this.runRowsAsync(idx, inlineRow, (i, k) => this.stepRowAsync(i, actions[k], out, k)).then(() => out);
  }

  /** The hot path: every env has twins, so the batch is one plain loop. */
  private stepInline(actions: readonly string[], idx: readonly number[], out: VectorStepResult): void {
    let failures: GemError[] | undefined;
    for (let k = 0; k < idx.length; k++) {
      try {
        this.stepRowSync(idx[k], actions[k], out, k);
      } catch (e) {
        (failures ??= []).push(e as GemError);
      }
    }
    if (failures) throw combineFailures(failures);
  }

  /**
   * A step run row by row, into the caller's columns: row k goes to `into.rows` at `into.at[k]`, and a
   * row whose env is not ready, or whose env fails, gets its error at `into.errors[into.at[k]]` while
   * the other rows still run (a batch of independent callers, such as the server's `batch` op, where
   * one caller's mistake is nobody else's). Indices are checked. Returns nothing when every row ran
   * inline.
   */
  protected runStepEach(actions: readonly string[], idx: readonly number[], into: EachRowSink): void | Promise<void> {
    const { rows, at, errors } = into;
    for (let k = 0; k < idx.length; k++) {
      const e = this.notReady(idx[k], true, actions[k]);
      if (e) errors[at[k]] = e;
    }
    return this.runEach(
      idx,
      into,
      (i, k) => this.stepRowSync(i, actions[k], rows, at[k]),
      (i, k) => this.stepRowAsync(i, actions[k], rows, at[k]),
    );
  }

  /** A reset run row by row into the caller's columns (observations and infos), as runStepEach. */
  protected runResetEach(opts: VectorResetOptions, idx: readonly number[], into: EachRowSink): void | Promise<void> {
    if (this.asyncEnvCount === 0 && idx.length <= this.sliceAbove) return this.resetEachInline(opts, idx, into);
    const batch = this.prepareReset(opts, idx, into);
    for (let k = 0; k < idx.length; k++) {
      const e = this.notReady(idx[k], false, undefined);
      if (e) into.errors[into.at[k]] = e;
    }
    return this.runEach(idx, into, batch.inlineRow, batch.asyncRow);
  }

  /** runResetEach's hot path (a make'd env's reset row, most often): a plain loop, no closure. */
  private resetEachInline(opts: VectorResetOptions, idx: readonly number[], into: EachRowSink): void {
    const { rows, at, errors } = into;
    const { seed, options } = opts;
    for (let k = 0; k < idx.length; k++) {
      const i = idx[k];
      const p = at[k];
      const notReady = this.notReady(i, false, undefined);
      if (notReady) {
        errors[p] = notReady;
        continue;
      }
      try {
        const r = this.envs[i].resetSync!({ seed: seedAt(seed, i, k), options: optionsAt(options, k) });
        this.phase[i] = Phase.Running;
        rows.observations[p] = r.observation;
        rows.infos[p] = r.info;
      } catch (e) {
        this.phase[i] = Phase.NeedsReset;
        errors[p] = asGemError(envFailure(i, e));
      }
    }
  }

  private runEach(
    idx: readonly number[],
    into: EachRowSink,
    inlineRow: (i: number, k: number) => void,
    asyncRow: (i: number, k: number) => Promise<void>,
  ): void | Promise<void> {
    const { at, errors } = into;
    if (this.asyncEnvCount === 0 && idx.length <= this.sliceAbove) {
      // The hot path (one env of a make'd handle, most often): a plain loop, no closure, no promise.
      for (let k = 0; k < idx.length; k++) {
        if (errors[at[k]]) continue;
        try {
          inlineRow(idx[k], k);
        } catch (e) {
          errors[at[k]] = asGemError(e);
        }
      }
      return;
    }
    const inlineEach = (i: number, k: number) => {
      if (errors[at[k]]) return;
      try {
        inlineRow(i, k);
      } catch (e) {
        errors[at[k]] = asGemError(e);
      }
    };
    if (this.asyncEnvCount === 0) return this.runRowsSliced(idx, inlineEach);
    return this.runRowsAsync(idx, inlineEach, (i, k) =>
      errors[at[k]] ? Promise.resolve() : asyncRow(i, k).catch((e: unknown) => void (errors[at[k]] = asGemError(e))),
    );
  }

  reset(opts: VectorResetOptions = {}): Promise<VectorResetResult> {
    try {
      const idx = this.resetIndices(opts);
      this.checkReady(idx, undefined);
      return this.runReset(opts, idx);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Resets a batch whose indices and readiness are checked. */
  protected runReset(opts: VectorResetOptions, idx: readonly number[]): Promise<VectorResetResult> {
    const batch = this.prepareReset(opts, idx);
    if (this.asyncEnvCount === 0) {
      if (idx.length > this.sliceAbove) return this.runRowsSliced(idx, batch.inlineRow).then(() => batch.out);
      this.runRowsInline(batch.indices, batch.inlineRow);
      return Promise.resolve(batch.out);
    }
    return this.runRowsAsync(batch.indices, batch.inlineRow, batch.asyncRow).then(() => batch.out);
  }

  /** The indices a reset covers, checked, with its seeds and options checked against them. */
  protected resetIndices(opts: VectorResetOptions): readonly number[] {
    const idx = this.batchIndices(opts.indices, opts.indices?.length ?? this.numEnvs, 'reset');
    this.checkSeed(opts.seed, idx.length);
    this.checkOptions(opts.options, idx.length);
    return idx;
  }

  /** step() without the promise; only for vector envs whose sub-envs all have twins. */
  protected stepNow(actions: string[], indices?: number[]): VectorStepResult {
    this.requireInline('stepSync');
    const idx = this.checkStep(actions, indices);
    const out = emptyBatch(idx.length);
    out.indices = idx as number[];
    this.stepInline(actions, idx, out);
    return out;
  }

  protected resetNow(opts: VectorResetOptions = {}): VectorResetResult {
    this.requireInline('resetSync');
    const idx = this.resetIndices(opts);
    this.checkReady(idx, undefined);
    const batch = this.prepareReset(opts, idx);
    this.runRowsInline(batch.indices, batch.inlineRow);
    return batch.out;
  }

  private requireInline(what: string): void {
    if (this.asyncEnvCount > 0) {
      throw new GemError('NOT_SUPPORTED', `${what}: ${this.asyncEnvCount} sub-envs have no sync twins; use the async method`);
    }
  }

  private checkStep(actions: string[], indices: number[] | undefined): readonly number[] {
    const idx = this.stepIndices(actions, indices);
    this.checkReady(idx, actions);
    return idx;
  }

  /** The indices a step covers, checked against the actions (not yet whether the envs are ready). */
  protected stepIndices(actions: string[], indices: number[] | undefined): readonly number[] {
    if (!Array.isArray(actions)) throw new GemError('INVALID_ACTION_BATCH', 'step: actions must be an array of strings');
    return this.batchIndices(indices, actions.length, 'step');
  }

  /** A reset's rows, written to a new result, or (`into`) to the caller's columns at `into.at[k]`. */
  private prepareReset(opts: VectorResetOptions, idx: readonly number[], into?: EachRowSink): PreparedBatch<VectorResetResult> {
    const { seed, options } = opts;
    const out: VectorResetResult = into
      ? { indices: idx as number[], observations: into.rows.observations, infos: into.rows.infos }
      : { indices: idx as number[], observations: new Array(idx.length), infos: new Array(idx.length) };
    const at = into?.at;
    const write = (i: number, k: number, r: ResetResult) => {
      this.phase[i] = Phase.Running;
      const p = at ? at[k] : k;
      out.observations[p] = r.observation;
      out.infos[p] = r.info;
    };
    const fail = (i: number, e: unknown) => {
      this.phase[i] = Phase.NeedsReset;
      return envFailure(i, e);
    };
    return {
      indices: idx,
      out,
      inlineRow: (i, k) => {
        try {
          write(i, k, this.envs[i].resetSync!({ seed: seedAt(seed, i, k), options: optionsAt(options, k) }));
        } catch (e) {
          throw fail(i, e);
        }
      },
      asyncRow: (i, k) =>
        this.envs[i].reset({ seed: seedAt(seed, i, k), options: optionsAt(options, k) }).then(
          (r) => write(i, k, r),
          (e) => {
            throw fail(i, e);
          },
        ),
    };
  }

  /** Throws unless `seed` is none, a finite number, or `count` finite numbers (read with seedAt). */
  private checkSeed(seed: number | number[] | undefined, count: number): void {
    if (seed === undefined || seed === null) return;
    if (typeof seed === 'number') {
      if (!Number.isFinite(seed)) throw new GemError('INVALID_OPTIONS', `reset: seed must be a finite number, got ${seed}`);
      return;
    }
    if (!Array.isArray(seed) || seed.length !== count || seed.some((s) => typeof s !== 'number' || !Number.isFinite(s))) {
      throw new GemError('INVALID_OPTIONS', `reset: seed must be a number or ${count} finite numbers, one per env reset`);
    }
  }

  /** Throws unless `options` is none, an object, or `count` objects (read with optionsAt). */
  private checkOptions(options: Record<string, unknown> | Record<string, unknown>[] | undefined, count: number): void {
    if (options === undefined || options === null) return;
    if (Array.isArray(options)) {
      if (options.length !== count) {
        throw new GemError('INVALID_OPTIONS', `reset: got ${options.length} option objects for ${count} envs`);
      }
      return;
    }
    if (typeof options !== 'object') throw new GemError('INVALID_OPTIONS', 'reset: options must be an object or a list of objects');
  }

  get closed(): boolean {
    return this.isClosed;
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await Promise.allSettled(this.envs.map((e) => e.close()));
    await Promise.allSettled(this.resources.map((r) => r.close()));
  }
}

/**
 * Where a batch run row by row writes (runStepEach, runResetEach): row k of the call into `rows` at
 * position `at[k]` (a reset writes observations and infos only), its failure into `errors[at[k]]`.
 */
export interface EachRowSink {
  rows: RowSink;
  at: readonly number[];
  errors: (GemError | undefined)[];
}

function asGemError(e: unknown): GemError {
  return isGemError(e) ? e : new GemError('INTERNAL', e instanceof Error ? e.message : String(e));
}

/** One failure is rethrown as is; several become one error listing every env that failed. */
export function combineFailures(failures: GemError[]): GemError {
  if (failures.length === 1) return failures[0];
  const first = failures[0];
  return new GemError(first.code, `${failures.length} envs failed; first: ${first.message}`, {
    failures: failures.map((f) => f.toJSON()),
  });
}

/** Env i's seed (the k-th reset row) under a checked reset seed: none, a base (seed + i), or one per row. */
function seedAt(seed: number | number[] | undefined, i: number, k: number): number | undefined {
  if (seed === undefined || seed === null) return undefined;
  return typeof seed === 'number' ? seed + i : seed[k];
}

/** The k-th reset row's options under checked reset options: none, one object for all, or one per row. */
function optionsAt(options: Record<string, unknown> | Record<string, unknown>[] | undefined, k: number): Record<string, unknown> | undefined {
  if (options === undefined || options === null) return undefined;
  return Array.isArray(options) ? options[k] : options;
}
