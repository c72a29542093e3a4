/**
 * The `batch` op: single-env steps and resets across a session's handles in one request, fanned out
 * to each handle's in-order queue and answered per row (one row's problem fails that row only).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { batchCounters } from '../../src/server/batchOp.ts';
import type { GemServer } from '../../src/server/server.ts';
import { connect, startServer, type WireClient } from './wireClient.ts';

const ID = 'game:GuessTheNumber-v0-easy';
const GUESS = '\\boxed{5}';

let server: GemServer;
let c: WireClient;

beforeEach(async () => {
  server = await startServer({ limits: { max_handles_per_client: 8 } });
  c = connect(server);
});

afterEach(async () => {
  c.close();
  await server.close();
});

async function make(fields: Record<string, unknown> = {}): Promise<number> {
  return (await c.ok({ op: 'make', env_ids: ID, num_envs: 1, autoreset_mode: 'disabled', ...fields })).header.handle as number;
}

type Row = [handle: number, index: number, action: string | null, seed?: number | null];

function batch(rows: Row[], extra: Record<string, unknown> = {}) {
  const cols: Record<string, unknown[]> = { handle: rows.map((r) => r[0]), env_index: rows.map((r) => r[1]), action: rows.map((r) => r[2]) };
  if (rows.some((r) => r[3] !== undefined)) cols.seed = rows.map((r) => r[3] ?? null);
  return c.request({ op: 'batch', rows: { ...cols, ...extra } });
}

describe('batch op', () => {
  it('steps and resets envs of several handles in one request, each row as it would run alone', async () => {
    const [a, b, twinA, twinB] = [await make(), await make({ num_envs: 2 }), await make(), await make({ num_envs: 2 })];
    const reset = await batch([
      [a, 0, null, 7],
      [b, 0, null, 8],
      [b, 1, null, 9],
    ]);
    expect(reset.header.ok).toBe(true);
    expect(reset.header.n).toBe(3);
    expect(reset.header.errors).toBeUndefined();
    const alone = [
      (await c.ok({ op: 'reset', handle: twinA, seed: [7], indices: [0] })).header.rows,
      (await c.ok({ op: 'reset', handle: twinB, seed: [8, 9], indices: [0, 1] })).header.rows,
    ];
    expect(reset.header.rows.observation).toEqual([...alone[0].observation, ...alone[1].observation]);

    const step = await batch([
      [b, 1, '\\boxed{3}'],
      [a, 0, GUESS],
      [b, 0, '\\boxed{9}'],
    ]);
    const stepA = (await c.ok({ op: 'step', handle: twinA, rows: { env_index: [0], action: [GUESS] } })).header.rows;
    const stepB = (await c.ok({ op: 'step', handle: twinB, rows: { env_index: [1, 0], action: ['\\boxed{3}', '\\boxed{9}'] } })).header.rows;
    const r = step.header.rows;
    expect(r.env_index).toEqual([1, 0, 0]);
    expect([r.observation[1], r.reward[1], r.terminated[1], r.info[1]]).toEqual([stepA.observation[0], stepA.reward[0], stepA.terminated[0], stepA.info[0]]);
    expect([r.observation[0], r.observation[2]]).toEqual(stepB.observation);
    expect([r.reward[0], r.reward[2]]).toEqual(stepB.reward);
  });

  it('runs rows of one env in row order (reset, step, step of one env in one request)', async () => {
    const h = await make({ options: { max_turns: 5 } });
    const r = await batch([
      [h, 0, null, 3],
      [h, 0, '\\boxed{1}'],
      [h, 0, '\\boxed{2}'],
    ]);
    expect(r.header.errors).toBeUndefined();
    expect(r.header.rows.observation[1]).toContain('turn 1');
    expect(r.header.rows.observation[2]).toContain('turn 2');
  });

  it('fails only the rows of an unknown handle or an index out of range, naming handle and env', async () => {
    const h = await make({ num_envs: 2 });
    await c.ok({ op: 'reset', handle: h, seed: 0 });
    const r = await batch([
      [h, 0, GUESS],
      [999, 3, GUESS],
      [h, 5, GUESS],
      [h, 1, GUESS],
    ]);
    expect(r.header.ok).toBe(true);
    const errors = r.header.errors as { row: number; code: string; message: string; data: Record<string, unknown> }[];
    expect(errors.map((e) => [e.row, e.code])).toEqual([
      [1, 'UNKNOWN_HANDLE'],
      [2, 'INDEX_OUT_OF_RANGE'],
    ]);
    expect(errors[0].message).toContain('env 3 of handle 999');
    expect(errors[0].data).toMatchObject({ handle: 999, index: 3 });
    expect(errors[1].data).toMatchObject({ handle: h, index: 5 });
    expect(r.header.rows.observation[0]).toMatch(/./);
    expect(r.header.rows.observation[3]).toMatch(/./);
  });

  it('a row whose env needs a reset fails alone; its siblings in the same handle step', async () => {
    const h = await make({ num_envs: 3 });
    await c.ok({ op: 'reset', handle: h, seed: 0, indices: [0, 2] });
    const r = await batch([
      [h, 0, GUESS],
      [h, 1, GUESS],
      [h, 2, GUESS],
    ]);
    expect(r.header.errors).toHaveLength(1);
    expect(r.header.errors[0]).toMatchObject({ row: 1, code: 'RESET_NEEDED', data: { handle: h, index: 1 } });
    expect(r.header.errors[0].message).toMatch(/^step: env 1 of handle \d+ needs a reset/);
    expect(r.header.rows.observation[0]).toMatch(/./);
    expect(r.header.rows.observation[2]).toMatch(/./);
  });

  it('a handle closed between two pipelined batches fails only its rows in the second', async () => {
    const [a, b] = [await make(), await make()];
    await c.ok({ op: 'reset', handle: a, seed: 1 });
    await c.ok({ op: 'reset', handle: b, seed: 2 });
    const [first, closed, second] = await Promise.all([
      batch([
        [a, 0, '\\boxed{1}'],
        [b, 0, '\\boxed{1}'],
      ]),
      c.request({ op: 'close', handle: a }),
      batch([
        [a, 0, '\\boxed{2}'],
        [b, 0, '\\boxed{2}'],
      ]),
    ]);
    expect(first.header.errors).toBeUndefined();
    expect(closed.header.ok).toBe(true);
    expect(second.header.errors).toEqual([expect.objectContaining({ row: 0, code: 'UNKNOWN_HANDLE', data: { handle: a, index: 0 } })]);
    expect(second.header.rows.observation[1]).toMatch(/./);
  });

  it('steps a tick of one-row handles without a call built per handle: one set of arrays for all of them', async () => {
    const hs = [await make(), await make(), await make(), await make()];
    const twin = await make();
    for (const h of [...hs, twin]) await c.ok({ op: 'reset', handle: h, seed: 4 });
    const before = { ...batchCounters };
    const r = await batch(hs.map((h, k): Row => [h, 0, `\\boxed{${k + 1}}`]));
    expect(r.header.errors).toBeUndefined();
    expect(batchCounters.oneRowCalls - before.oneRowCalls).toBe(4);
    expect(batchCounters.oneRowArrays - before.oneRowArrays).toBe(1);
    expect(batchCounters.groupedCalls - before.groupedCalls).toBe(0);
    // Each row is what its env gives alone.
    const alone = (await c.ok({ op: 'step', handle: twin, rows: { env_index: [0], action: ['\\boxed{3}'] } })).header.rows;
    expect([r.header.rows.observation[2], r.header.rows.reward[2], r.header.rows.info[2]]).toEqual([alone.observation[0], alone.reward[0], alone.info[0]]);
  });

  it('rejects columns of different lengths as a bad request', async () => {
    const h = await make();
    const r = await c.request({ op: 'batch', rows: { handle: [h, h], env_index: [0], action: [GUESS, GUESS] } });
    expect(r.header.ok).toBe(false);
    expect(r.header.error.code).toBe('INVALID_REQUEST');
  });
});
