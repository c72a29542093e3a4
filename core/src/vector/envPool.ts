/**
 * EnvPool: EnvPool's asynchronous shape for LLM rollouts. `send(actions, indices)` starts steps and
 * returns at once; `recv({minBatch, timeoutMs})` resolves as soon as `minBatch` of the envs in flight
 * have finished, whichever they are, with their indices. A slow env (a tool call, a sandboxed test
 * run) therefore never holds back the others' rows. An env stays in flight — ALREADY_PENDING for
 * another send, step or reset — until a recv returns its row. `step` and `reset` work as in
 * AsyncVectorEnv on envs that are not in flight.
 *
 * Finished rows wait in per-env slots, and a ring of env indices keeps their finishing order, so a
 * send/recv round allocates nothing per row beyond what the env itself returns.
 *
 * The `…InOrder` calls are how the server serves a handle: many requests may be in flight on one
 * pool. A call on envs that an earlier call still holds waits for it, in arrival order (a pipelined
 * reset then step of one env never swap), while calls on disjoint envs run at once (a slow tool call
 * in env 3 never holds back a step of env 7). Indices are checked when the call is made, once.
 * Batches over SLICE_ABOVE rows of inline envs run in slices of SLICE_ROWS that yield to the event
 * loop, so a huge step never holds another client's small one for more than a slice.
 */
import type { Env, Info } from '../core/env.ts';
import { EnvClosedError, GemError } from '../core/errors.ts';
import type { EnvPoolLike, RecvOptions, VectorResetOptions, VectorResetResult, VectorStepResult } from './types.ts';
import { combineFailures, emptyBatch, VectorEnvBase, type EachRowSink, type RowSink, type SliceSink, type VectorEnvInit } from './vectorEnvBase.ts';

/**
 * Rows per slice of a huge batch: ~0.3–0.6 ms of GuessTheNumber steps or reply encoding on one core,
 * against a setImmediate (µs) each, so slicing costs ~1% and bounds the event loop's longest turn
 * even when other processes share the cores (a 1 ms slice became 10–25 ms of wall time at load 19).
 */
export const SLICE_ROWS = 256;
/** Batches of up to this many rows (the wire benchmark's 1,024) run in one go, as before. */
export const SLICE_ABOVE = 1024;

/** A call waiting for its envs: `indices` null = every env of the pool. */
interface QueuedCall {
  indices: readonly number[] | null;
  run: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

interface Waiter {
  minBatch: number;
  maxBatch: number;
  resolve: (r: VectorStepResult) => void;
  reject: (e: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
}

export class EnvPool extends VectorEnvBase implements EnvPoolLike {
  protected readonly concurrent = true;
  protected readonly sliceAbove = SLICE_ABOVE;
  protected readonly sliceRows = SLICE_ROWS;
  private readonly slots: RowSink;
  private readonly failed: (GemError | undefined)[];
  private failedCount = 0;
  /** Env indices whose rows are ready, in finishing order (a ring; each env is in it at most once). */
  private readonly ready: Int32Array;
  private head = 0;
  private readyCount = 0;
  private sent = 0;
  /** Rows of envs without sync twins still running (timers, I/O, worker threads). */
  private running = 0;
  private waiter?: Waiter;
  /** In-order calls waiting for their envs, in arrival order. */
  private readonly queued: QueuedCall[] = [];
  /** In-order calls running; a whole-pool call runs alone (`runningAll`). */
  private runningCalls = 0;
  private runningAll = false;
  /** Scratch marks for the envs that waiting calls claim during one scan of the queue. */
  private claimed?: Uint8Array;
  private draining = false;
  private drainAgain = false;

  constructor(init: VectorEnvInit) {
    super(init);
    const n = this.numEnvs;
    this.slots = {
      observations: new Array<string>(n).fill(''),
      rewards: new Float64Array(n),
      terminated: new Array<boolean>(n).fill(false),
      truncated: new Array<boolean>(n).fill(false),
      infos: new Array<Info>(n),
    };
    this.failed = new Array(n);
    this.ready = new Int32Array(n);
  }

  /** Envs sent and not yet received. */
  get inFlight(): number {
    return this.sent;
  }

  send(actions: string[], indices: number[]): void {
    if (!Array.isArray(actions)) throw new GemError('INVALID_ACTION_BATCH', 'send: actions must be an array of strings');
    if (indices === undefined) throw new GemError('INVALID_ACTION_BATCH', 'send: give the env indices the actions are for');
    const idx = this.batchIndices(indices, actions.length, 'send');
    this.checkReady(idx, actions);
    for (let k = 0; k < idx.length; k++) {
      const i = idx[k];
      this.busy[i] = 1;
      this.sent++;
      if (this.inline[i]) {
        try {
          this.stepRowSync(i, actions[k], this.slots, i);
        } catch (e) {
          this.markFailed(i, e as GemError);
        }
        this.pushReady(i);
      } else {
        this.running++;
        this.stepRowAsync(i, actions[k], this.slots, i).then(
          () => {
            this.running--;
            this.pushReady(i);
          },
          (e) => {
            this.running--;
            this.markFailed(i, e as GemError);
            this.pushReady(i);
          },
        );
      }
    }
  }

  recv(opts: RecvOptions = {}): Promise<VectorStepResult> {
    try {
      if (this.closed) throw new EnvClosedError('recv from');
      if (this.waiter) throw new GemError('ALREADY_PENDING', 'recv: another recv is still waiting on this pool');
      if (this.sent === 0) throw new GemError('NO_PENDING_CALL', 'recv: no env is in flight; send actions first');
      const minBatch = opts.minBatch ?? this.sent;
      const maxBatch = opts.maxBatch ?? this.numEnvs;
      if (!Number.isInteger(minBatch) || minBatch < 1 || minBatch > this.sent) {
        throw new GemError('INVALID_ACTION_BATCH', `recv: minBatch must be an integer in 1–${this.sent} (the envs in flight), got ${minBatch}`);
      }
      if (!Number.isInteger(maxBatch) || maxBatch < minBatch) {
        throw new GemError('INVALID_ACTION_BATCH', `recv: maxBatch must be an integer ≥ minBatch (${minBatch}), got ${maxBatch}`);
      }
      if (opts.timeoutMs !== undefined && !(opts.timeoutMs >= 0)) {
        throw new GemError('INVALID_OPTIONS', `recv: timeoutMs must be ≥ 0, got ${opts.timeoutMs}`);
      }
      const satisfied = this.readyCount >= minBatch || this.failedCount > 0;
      if (satisfied && this.running === 0) return Promise.resolve(this.take(maxBatch));
      return new Promise<VectorStepResult>((resolve, reject) => {
        const w: Waiter = { minBatch, maxBatch, resolve, reject };
        this.waiter = w;
        if (satisfied) {
          // Ready already, but other envs are still working: yield to the event loop once, so their
          // timers and I/O get a turn even when a caller loops on recv over instant envs.
          setImmediate(() => this.wake(w));
        } else if (opts.timeoutMs !== undefined) {
          w.timer = setTimeout(() => this.wake(w), opts.timeoutMs);
        }
      });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  // ── in-order calls (the server's) ─────────────────────────────────────────────────────────────

  /** step() that waits for envs held by earlier calls instead of failing ALREADY_PENDING. */
  stepInOrder(actions: string[], indices: number[], onSlice?: SliceSink): Promise<VectorStepResult> {
    try {
      const idx = this.stepIndices(actions, indices);
      return this.inOrder(idx, () => {
        this.checkReady(idx, actions);
        return this.runStep(actions, idx, onSlice);
      });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * stepInOrder for a batch still being decoded (a huge request body read in slices): it takes its
   * place in the order now, as a whole-pool call, so no later call can overtake it. `onSlice` sees
   * each slice's rows as they are written, when the batch runs in slices.
   */
  stepInOrderWhenDecoded(batch: Promise<{ actions: string[]; indices: number[] }>, onSlice?: SliceSink): Promise<VectorStepResult> {
    batch.catch(() => undefined); // rejected through the call below, never unhandled
    return this.inOrder(null, async () => {
      const { actions, indices } = await batch;
      const idx = this.stepIndices(actions, indices);
      this.checkReady(idx, actions);
      return this.runStep(actions, idx, onSlice);
    });
  }

  /** reset() that waits for envs held by earlier calls. */
  resetInOrder(opts: VectorResetOptions = {}): Promise<VectorResetResult> {
    try {
      const idx = this.resetIndices(opts);
      return this.inOrder(opts.indices ? idx : null, () => {
        this.checkReady(idx, undefined);
        return this.runReset(opts, idx);
      });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * stepInOrder row by row (the server's `batch` op, where each row is another caller's): rows go to
   * the caller's columns, and a row whose env needs a reset, or whose env fails, gets its own error
   * there while the others step (see EachRowSink). Undefined: the call's turn was now and it ran
   * inline (no earlier call held its envs, every env has a sync twin), so nothing was left to wait for.
   */
  stepEachInOrder(actions: string[], indices: number[], into: EachRowSink): Promise<void> | undefined {
    try {
      const idx = this.stepIndices(actions, indices);
      return this.inOrderInline(idx, () => this.runStepEach(actions, idx, into));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** resetInOrder row by row, as stepEachInOrder. */
  resetEachInOrder(opts: VectorResetOptions & { indices: number[] }, into: EachRowSink): Promise<void> | undefined {
    try {
      const idx = this.resetIndices(opts);
      return this.inOrderInline(idx, () => this.runResetEach(opts, idx, into));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** sampleRandomActions() after the calls queued on those envs. */
  sampleInOrder(indices?: number[]): Promise<{ indices: readonly number[]; actions: string[] }> {
    try {
      const idx = this.batchIndices(indices, indices?.length ?? this.numEnvs, 'sampleRandomActions');
      return this.inOrder(indices ? idx : null, () => ({ indices: idx, actions: idx.map((i) => this.envs[i].sampleRandomAction() as string) }));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Runs `run` on the envs at `indices` (all when absent) once the calls queued on them have run;
   * they stay held until it settles, so a later step waits for it (the server's attribute ops).
   */
  withEnvsInOrder<T>(indices: readonly number[] | undefined, run: (envs: Env<any, any>[], indices: readonly number[]) => Promise<T> | T): Promise<T> {
    try {
      const idx = indices ?? Array.from({ length: this.numEnvs }, (_, i) => i);
      const envs = idx.map((i) => this.envAt(i));
      return this.inOrder(indices ? idx : null, async () => {
        for (const i of idx) this.busy[i] = 1;
        try {
          return await run(envs, idx);
        } finally {
          for (const i of idx) this.busy[i] = 0;
        }
      });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Closes once the calls already queued have run; later calls fail ENV_CLOSED. */
  closeInOrder(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.inOrder(null, () => this.close());
  }

  /** Runs `run` once no earlier call holds any of `indices` (null = all envs). */
  private inOrder<T>(indices: readonly number[] | null, run: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const call: QueuedCall = { indices, run, resolve: resolve as (v: unknown) => void, reject };
      if (this.queued.length === 0 && !this.draining && this.isFree(indices)) this.begin(call);
      else {
        this.queued.push(call);
        this.drainCalls();
      }
    });
  }

  /**
   * inOrder for a call that may finish inline: when its turn is now (nothing queued, its envs free)
   * it runs at once, and when it finishes inline the result is undefined, with no promise made; the
   * batch op answers a tick of one-env rows of many handles without a turn of the event loop.
   */
  private inOrderInline(indices: readonly number[], run: () => void | Promise<void>): Promise<void> | undefined {
    if (this.queued.length !== 0 || this.draining || this.closed || !this.isFree(indices)) return this.inOrder(indices, run);
    this.runningCalls++;
    let out: void | Promise<void>;
    try {
      out = run();
    } catch (e) {
      this.end(indices);
      return Promise.reject(e);
    }
    if (!(out instanceof Promise)) {
      this.end(indices);
      return undefined;
    }
    return out.then(
      () => this.end(indices),
      (e: unknown) => {
        this.end(indices);
        throw e;
      },
    );
  }

  /** Starts a call whose envs are free. (Methods, not closures per call: a served handle makes many.) */
  private begin(call: QueuedCall): void {
    this.runningCalls++;
    if (call.indices === null) this.runningAll = true;
    let out: unknown;
    try {
      if (this.closed) throw new EnvClosedError('use');
      out = call.run();
    } catch (e) {
      out = Promise.reject(e);
    }
    // An inline call has finished already: settle without a further turn of the queue.
    if (!(out instanceof Promise)) {
      this.end(call.indices);
      call.resolve(out);
      return;
    }
    out.then(
      (v) => {
        this.end(call.indices);
        call.resolve(v);
      },
      (e) => {
        this.end(call.indices);
        call.reject(e);
      },
    );
  }

  private end(indices: readonly number[] | null): void {
    this.runningCalls--;
    if (indices === null) this.runningAll = false;
    this.drainCalls();
  }

  /** No running call or env in flight holds these envs. Envs of a running batch are busy. */
  private isFree(indices: readonly number[] | null): boolean {
    if (this.runningAll) return false;
    if (indices === null) return this.runningCalls === 0 && this.sent === 0;
    for (let k = 0; k < indices.length; k++) if (this.busy[indices[k]]) return false;
    return true;
  }

  /**
   * Starts every queued call that neither a running call nor an earlier queued one blocks. A call that
   * finishes inline while this runs asks for another pass (`drainAgain`) instead of draining inside
   * it, so no call is started twice and the scratch marks are never shared by two scans.
   */
  private drainCalls(): void {
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    if (this.queued.length === 0) return;
    this.draining = true;
    try {
      do {
        this.drainAgain = false;
        this.drainOnce();
      } while (this.drainAgain && this.queued.length > 0);
    } finally {
      this.draining = false;
    }
  }

  private drainOnce(): void {
    const claimed = (this.claimed ??= new Uint8Array(this.numEnvs));
    const queue = this.queued.splice(0);
    const still: QueuedCall[] = [];
    const marked: number[] = [];
    let blockAll = false;
    for (const call of queue) {
      const blocked = blockAll || (call.indices === null ? still.length > 0 : call.indices.some((i) => claimed[i] === 1));
      if (!blocked && this.isFree(call.indices)) {
        this.begin(call);
        continue;
      }
      still.push(call);
      if (call.indices === null) blockAll = true;
      else
        for (const i of call.indices) {
          claimed[i] = 1;
          marked.push(i);
        }
    }
    for (const i of marked) claimed[i] = 0;
    // Calls queued while this ran (by a call's own code) come after the ones still waiting.
    this.queued.unshift(...still);
  }

  private markFailed(i: number, e: GemError): void {
    this.failed[i] = e;
    this.failedCount++;
  }

  private pushReady(i: number): void {
    let at = this.head + this.readyCount;
    if (at >= this.numEnvs) at -= this.numEnvs;
    this.ready[at] = i;
    this.readyCount++;
    const w = this.waiter;
    if (w && (this.readyCount >= w.minBatch || this.failedCount > 0)) this.wake(w);
  }

  /** Resolves `w` with the rows ready now (all of them, up to its maxBatch), if it still waits. */
  private wake(w: Waiter): void {
    if (this.waiter !== w) return;
    this.waiter = undefined;
    if (w.timer) clearTimeout(w.timer);
    try {
      w.resolve(this.take(w.maxBatch));
    } catch (e) {
      w.reject(e);
    }
  }

  /**
   * Up to `max` ready rows, in finishing order. If any env failed, its error is thrown instead and
   * the other ready rows stay queued for the next recv.
   */
  private take(max: number): VectorStepResult {
    if (this.failedCount > 0) throw this.takeFailures();
    const count = Math.min(max, this.readyCount);
    const out = emptyBatch(count);
    out.indices = new Array<number>(count);
    const s = this.slots;
    const n = this.numEnvs;
    for (let k = 0; k < count; k++) {
      const i = this.ready[this.head];
      this.head = this.head + 1 === n ? 0 : this.head + 1;
      out.indices[k] = i;
      out.observations[k] = s.observations[i];
      out.rewards[k] = s.rewards[i];
      out.terminated[k] = s.terminated[i];
      out.truncated[k] = s.truncated[i];
      out.infos[k] = s.infos[i];
      s.observations[i] = '';
      s.infos[i] = undefined as unknown as Info;
      this.busy[i] = 0;
    }
    this.readyCount -= count;
    this.sent -= count;
    this.drainCalls();
    return out;
  }

  /** Removes the failed envs from the ring (releasing them) and returns their combined error. */
  private takeFailures(): GemError {
    const n = this.numEnvs;
    const kept: number[] = [];
    const errors: GemError[] = [];
    for (let k = 0; k < this.readyCount; k++) {
      const i = this.ready[(this.head + k) % n];
      const e = this.failed[i];
      if (!e) {
        kept.push(i);
        continue;
      }
      errors.push(e);
      this.failed[i] = undefined;
      this.busy[i] = 0;
      this.sent--;
    }
    this.failedCount -= errors.length;
    this.head = 0;
    this.readyCount = kept.length;
    for (let k = 0; k < kept.length; k++) this.ready[k] = kept[k];
    this.drainCalls();
    return combineFailures(errors);
  }

  async close(): Promise<void> {
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      if (w.timer) clearTimeout(w.timer);
      w.reject(new EnvClosedError('recv from'));
    }
    await super.close();
  }
}
