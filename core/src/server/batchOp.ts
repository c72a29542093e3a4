/**
 * The `batch` op: single-env steps and resets across one session's handles, one row each, in one
 * request (what gem_ts.aio gathers from its coroutines in one event-loop tick, whatever env each one
 * holds). The rows are fanned out to each handle's pool through its in-order queue, as one call per
 * group of rows, and answered per row: a row's own problem (an unknown or closed handle, an index out
 * of range, an env that needs a reset or fails) becomes that row's error, naming its handle and env,
 * and every other row still runs.
 *
 * Order: rows of one env run in row order. Within a handle, a row joins the latest call of its kind
 * (step, seeded reset, unseeded reset) unless its env appears in that call or a later one; calls are
 * queued in the order they were opened, and the queue runs calls that share an env in that order.
 */
import { GemError } from '../core/errors.ts';
import type { Info } from '../core/env.ts';
import type { EachRowSink } from '../vector/vectorEnvBase.ts';
import type { ClientSession } from './clientSession.ts';
import type { EnvHandle } from './envHandle.ts';
import type { BatchRequest, BatchRowError } from './protocol/headers.ts';
import type { DataBase, Tenancy } from './tenancy.ts';

/** What the op handler answers with (its OpResult's fields). */
export interface BatchFields {
  n: number;
  rows: { env_index: number[]; observation: string[]; reward: number[]; terminated: boolean[]; truncated: boolean[]; info: Info[] };
  errors?: BatchRowError[];
}

type Kind = 0 | 1 | 2; // step, unseeded reset, seeded reset

interface Call {
  kind: Kind;
  /** Request rows in this call (where its results go), and their env indices. */
  rows: number[];
  indices: number[];
}

interface HandleRows {
  h: EnvHandle;
  /** The handle's only row so far (-1: none yet, or its rows are in `calls`). */
  first: number;
  /** Made when the handle has a second row. */
  calls?: Call[];
  /** Env index → the last call that holds it. */
  lastCall?: Map<number, number>;
}

/**
 * The arrays a one-row step call is made of, reused from one handle to the next while each call runs
 * inline (most handles of a tick hold one row: a make'd env per coroutine); a call that has to wait
 * keeps its own, and the next call gets new ones.
 */
class OneRow {
  readonly actions = [''];
  readonly indices = [0];
  readonly into: EachRowSink;
  constructor(rows: EachRowSink['rows'], errors: (GemError | undefined)[]) {
    this.into = { rows, at: [0], errors };
  }
}

/** Converts an error that is no GemError (a bug) to one, so a row still gets a stable code. */
export type ToGemError = (e: unknown) => GemError;

/** Counts of the calls a batch handed to pools (tests). */
export const batchCounters = { oneRowCalls: 0, groupedCalls: 0, oneRowArrays: 0 };

/**
 * `tenancy` admits the step rows sent to envs that keep state (history) against the byte quotas: a
 * refused call's rows get LIMIT_EXCEEDED, nothing of them runs, and the other rows still do.
 */
export function runBatch(s: ClientSession, r: BatchRequest, toGemError: ToGemError, tenancy?: Tenancy): BatchFields | Promise<BatchFields> {
  const { handle, env_index, action, seed } = r.rows;
  const n = handle.length;
  // Every row's result is written here, at its own position, by the pools' row-by-row calls.
  const sink = {
    observations: new Array<string>(n).fill(''),
    rewards: new Float64Array(n),
    terminated: new Array<boolean>(n).fill(false),
    truncated: new Array<boolean>(n).fill(false),
    infos: new Array<Info>(n),
  };
  const errors = new Array<GemError | undefined>(n);

  const byHandle = new Map<number, HandleRows>();
  for (let k = 0; k < n; k++) {
    const id = handle[k];
    let hr = byHandle.get(id);
    if (hr === undefined) {
      const h = s.handles.get(id);
      if (h === undefined) {
        errors[k] = unknownHandle(id);
        continue;
      }
      hr = { h, first: -1 };
      byHandle.set(id, hr);
    }
    const i = env_index[k];
    if (i >= hr.h.numEnvs) {
      errors[k] = new GemError('INDEX_OUT_OF_RANGE', `env index ${i} is out of range for ${hr.h.numEnvs} envs`, { index: i, numEnvs: hr.h.numEnvs });
      continue;
    }
    if (hr.calls === undefined) {
      if (hr.first < 0) {
        hr.first = k;
        continue;
      }
      const f = hr.first;
      hr.calls = [{ kind: kindOf(action, seed, f), rows: [f], indices: [env_index[f]] }];
      hr.lastCall = new Map([[env_index[f], 0]]);
      hr.first = -1;
    }
    const kind = kindOf(action, seed, k);
    const calls = hr.calls;
    const lastCall = hr.lastCall!;
    let c = calls.length - 1;
    while (c >= 0 && calls[c].kind !== kind) c--;
    if (c < 0 || (lastCall.get(i) ?? -1) >= c) {
      c = calls.length;
      calls.push({ kind, rows: [], indices: [] });
    }
    calls[c].rows.push(k);
    calls[c].indices.push(i);
    lastCall.set(i, c);
  }

  const running: Promise<void>[] = [];
  const waitFor = (waiting: Promise<void>, rows: readonly number[]) =>
    running.push(
      waiting.catch((e: unknown) => {
        for (const k of rows) errors[k] ??= toGemError(e);
      }),
    );
  /** Bytes admitted for a step call (0 when its envs keep no state); undefined: refused, its rows failed. */
  let base: DataBase | undefined; // summed once for the whole batch: no make or push runs meanwhile
  const admit = (h: EnvHandle, actions: readonly string[], indices: readonly number[], rows: readonly number[]): number | undefined => {
    if (!h.keepsState || !tenancy) return 0;
    try {
      return tenancy.admitStep(s, h, actions, indices, (base ??= tenancy.dataBase(s)));
    } catch (e) {
      for (const k of rows) errors[k] = e as GemError;
      return undefined;
    }
  };
  const settle = (waiting: Promise<void> | undefined, reserved: number): Promise<void> | undefined => {
    if (reserved === 0 || !tenancy) return waiting;
    if (waiting === undefined) {
      tenancy.endStep(s, reserved);
      return undefined;
    }
    return waiting.finally(() => tenancy.endStep(s, reserved));
  };
  let one: OneRow | undefined;
  for (const hr of byHandle.values()) {
    const { h, first: k } = hr;
    if (k >= 0 && action[k] !== null) {
      // One step row of this handle: no call built, the arrays of the last inline call reused.
      if (one === undefined) {
        one = new OneRow(sink, errors);
        batchCounters.oneRowArrays++;
      }
      one.actions[0] = action[k]!;
      one.indices[0] = env_index[k];
      (one.into.at as number[])[0] = k;
      batchCounters.oneRowCalls++;
      const reserved = admit(h, one.actions, one.indices, [k]);
      if (reserved === undefined) continue;
      const waiting = settle(h.pool.stepEachInOrder(one.actions, one.indices, one.into), reserved);
      if (waiting === undefined) continue; // ran at once, inline: its row is written
      waitFor(waiting, [k]);
      one = undefined; // the waiting call holds these arrays
      continue;
    }
    const calls = hr.calls ?? (k >= 0 ? [{ kind: kindOf(action, seed, k), rows: [k], indices: [env_index[k]] }] : []);
    for (const call of calls) {
      batchCounters.groupedCalls++;
      const into: EachRowSink = { rows: sink, at: call.rows, errors };
      const reserved = call.kind === 0 ? admit(h, call.rows.map((k) => action[k] as string), call.indices, call.rows) : 0;
      if (reserved === undefined) continue;
      const waiting = settle(runCall(h, call, into, r.rows), reserved);
      if (waiting !== undefined) waitFor(waiting, call.rows);
    }
  }
  // A tick whose calls all ran inline is answered in this turn of the event loop.
  if (running.length === 0) return reply(r, sink, errors, toGemError);
  return Promise.all(running).then(() => reply(r, sink, errors, toGemError));
}

function kindOf(action: BatchRequest['rows']['action'], seed: BatchRequest['rows']['seed'], k: number): Kind {
  return action[k] !== null ? 0 : seed?.[k] != null ? 2 : 1;
}

function reply(r: BatchRequest, sink: EachRowSink['rows'], errors: (GemError | undefined)[], toGemError: ToGemError): BatchFields {
  const { handle, env_index, action } = r.rows;
  const n = handle.length;
  const reward = new Array<number>(n);
  const failed: BatchRowError[] = [];
  for (let k = 0; k < n; k++) {
    reward[k] = sink.rewards[k];
    sink.infos[k] ??= {};
    const e = errors[k];
    if (e !== undefined) failed.push(rowError(k, handle[k], env_index[k], action[k] === null ? 'reset' : 'step', toGemError(e)));
  }
  const rows = { env_index, observation: sink.observations, reward, terminated: sink.terminated, truncated: sink.truncated, info: sink.infos };
  return failed.length ? { n, rows, errors: failed } : { n, rows };
}

function runCall(h: EnvHandle, call: Call, into: EachRowSink, { action, seed, options }: BatchRequest['rows']): Promise<void> | undefined {
  if (call.kind === 0) return h.pool.stepEachInOrder(call.rows.map((k) => action[k] as string), call.indices, into);
  const opts = options && call.rows.some((k) => options[k]) ? call.rows.map((k) => options[k] ?? {}) : undefined;
  return h.pool.resetEachInOrder(
    {
      indices: call.indices,
      seed: call.kind === 2 ? call.rows.map((k) => seed![k] as number) : undefined,
      options: opts,
    },
    into,
  );
}

function unknownHandle(id: number): GemError {
  return new GemError(
    'UNKNOWN_HANDLE',
    `handle ${id} is not open for this client (never made, already closed, freed after an idle timeout, or made by another client)`,
    { handle: id },
  );
}

/** A row's error, its message and data naming the env (handle and index) it is for. */
function rowError(row: number, handle: number, index: number, op: 'step' | 'reset', e: GemError): BatchRowError {
  const env = `env ${index} of handle ${handle}`;
  const own = `env ${index}`;
  const message = e.message.startsWith(`${own}:`) || e.message.startsWith(`${own} `) ? env + e.message.slice(own.length) : `${env}: ${e.message}`;
  const data = isPlainData(e.data) ? { ...e.data, handle, index } : { handle, index };
  return { row, code: e.code, message: `${op}: ${message}`, data };
}

function isPlainData(d: unknown): d is Record<string, unknown> {
  return typeof d === 'object' && d !== null && !Array.isArray(d);
}
