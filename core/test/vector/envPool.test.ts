/** EnvPool send/recv: whichever envs finish first come back first, with their indices. */
import { describe, expect, it } from 'vitest';
import type { Env, StepResult } from '../../src/core/env.ts';
import { EnvPool, SLICE_ABOVE, SLICE_ROWS } from '../../src/vector/envPool.ts';
import { AsyncOnly, CountingEnv } from '../helpers/countingEnv.ts';

describe('EnvPool', () => {
  it('a slow env (200 ms per step) never holds back the others', async () => {
    const slow = new AsyncOnly(new CountingEnv(1000), (a) => (a === 'slow' ? 200 : 0));
    const pool = new EnvPool({ envs: [new CountingEnv(1000), slow, new AsyncOnly(new CountingEnv(1000)), new CountingEnv(1000)] as Env[] });
    await pool.reset();
    pool.send(['f', 'slow', 'f', 'f'], [0, 1, 2, 3]);
    const first = await pool.recv({ minBatch: 3 });
    expect(first.indices.slice().sort()).toEqual([0, 2, 3]);
    // Keep the fast envs busy while the slow one works: each returned fast env is sent again at once.
    pool.send(['f', 'f', 'f'], [0, 2, 3]);
    let fastSteps = 0;
    for (;;) {
      const r = await pool.recv({ minBatch: 1 });
      const fast = r.indices.filter((i) => i !== 1);
      fastSteps += fast.length;
      if (r.indices.includes(1)) break;
      pool.send(fast.map(() => 'f'), fast);
    }
    expect(fastSteps).toBeGreaterThan(10);
    if (pool.inFlight > 0) await pool.recv();
    expect(pool.inFlight).toBe(0);
    await pool.close();
  });

  it('recv waits for minBatch, returns at most maxBatch, and the rest stays queued in finishing order', async () => {
    const pool = new EnvPool({ envs: [0, 1, 2, 3].map(() => new CountingEnv(9)) });
    await pool.reset();
    pool.send(['a', 'b', 'c', 'd'], [3, 1, 0, 2]);
    expect(pool.inFlight).toBe(4);
    const r1 = await pool.recv({ minBatch: 1, maxBatch: 2 });
    expect(r1.indices).toEqual([3, 1]);
    expect(r1.observations).toEqual(['e1/t1/a', 'e1/t1/b']);
    expect(pool.inFlight).toBe(2);
    const r2 = await pool.recv();
    expect(r2.indices).toEqual([0, 2]);
    expect(pool.inFlight).toBe(0);
    await expect(pool.recv()).rejects.toMatchObject({ code: 'NO_PENDING_CALL' });
  });

  it('recv with a timeout returns what has finished, possibly nothing', async () => {
    const pool = new EnvPool({ envs: [new AsyncOnly(new CountingEnv(), 150)] as Env[] });
    await pool.reset();
    pool.send(['a'], [0]);
    const none = await pool.recv({ timeoutMs: 10 });
    expect(none.indices).toEqual([]);
    expect(none.rewards.length).toBe(0);
    const later = await pool.recv({ timeoutMs: 2000 });
    expect(later.indices).toEqual([0]);
  });

  it('rejects a minBatch larger than the envs in flight, and bad maxBatch/timeout', async () => {
    const pool = new EnvPool({ envs: [new CountingEnv(), new CountingEnv()] });
    await pool.reset();
    pool.send(['a'], [0]);
    await expect(pool.recv({ minBatch: 2 })).rejects.toMatchObject({ code: 'INVALID_ACTION_BATCH', message: /1–1/ });
    await expect(pool.recv({ minBatch: 1, maxBatch: 0 })).rejects.toMatchObject({ code: 'INVALID_ACTION_BATCH' });
    expect(() => pool.send(['a'], undefined as never)).toThrowError(/give the env indices/);
  });

  it('a failing env surfaces in recv with its index; the other rows wait for the next recv', async () => {
    const bad = new CountingEnv();
    const pool = new EnvPool({ envs: [new CountingEnv(), bad, new CountingEnv()] });
    await pool.reset();
    bad.stepSync = (): StepResult => {
      throw new Error('grader crashed');
    };
    pool.send(['a', 'b', 'c'], [0, 1, 2]);
    await expect(pool.recv()).rejects.toMatchObject({ message: 'env 1: grader crashed', data: { index: 1 } });
    expect(pool.inFlight).toBe(2);
    const rest = await pool.recv();
    expect(rest.indices).toEqual([0, 2]);
    await expect(pool.step(['x'], [1])).rejects.toMatchObject({ code: 'RESET_NEEDED' });
  });

  it('close rejects a waiting recv', async () => {
    const pool = new EnvPool({ envs: [new AsyncOnly(new CountingEnv(), 100)] as Env[] });
    await pool.reset();
    pool.send(['a'], [0]);
    const waiting = pool.recv();
    await pool.close();
    await expect(waiting).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    expect(() => pool.send(['a'], [0])).toThrowError(expect.objectContaining({ code: 'ENV_CLOSED' }));
  });
});

describe('EnvPool in-order calls (how the server serves a handle)', () => {
  const slowOn = (a: string) => (a === 'slow' || a === '' ? 60 : 0);
  const mixedPool = () =>
    new EnvPool({ envs: [new AsyncOnly(new CountingEnv(9), slowOn), new CountingEnv(9), new CountingEnv(9), new AsyncOnly(new CountingEnv(9))] as Env[] });

  it('calls on disjoint envs run at once: a slow env never holds back a call on another', async () => {
    const pool = mixedPool();
    await pool.reset();
    const log: string[] = [];
    const slow = pool.stepInOrder(['slow'], [0]).then(() => log.push('slow'));
    const fast = pool.stepInOrder(['f', 'f'], [1, 3]).then(() => log.push('fast'));
    await Promise.all([slow, fast]);
    expect(log).toEqual(['fast', 'slow']);
    await pool.close();
  });

  it('calls that share an env run in arrival order: a pipelined reset then step of one env never swap', async () => {
    const pool = mixedPool();
    const log: string[] = [];
    // Env 0 was never reset: the step is valid only because it waits for the reset sent before it.
    const reset = pool.resetInOrder({ indices: [0, 1], seed: 5 }).then(() => log.push('reset'));
    const step = pool.stepInOrder(['a'], [0]).then((r) => log.push(`step ${r.observations[0]}`));
    const other = pool.resetInOrder({ indices: [2] }).then(() => log.push('other'));
    await Promise.all([reset, step, other]);
    expect(log).toEqual(['other', 'reset', 'step e1/t1/a']);
    await pool.close();
  });

  it('a whole-pool call waits for every earlier one and holds back later ones', async () => {
    const pool = mixedPool();
    await pool.reset();
    const log: string[] = [];
    const a = pool.stepInOrder(['slow'], [0]).then(() => log.push('a'));
    const all = pool.resetInOrder({ seed: 1 }).then(() => log.push('all'));
    const b = pool.stepInOrder(['x'], [2]).then(() => log.push('b'));
    await Promise.all([a, all, b]);
    expect(log).toEqual(['a', 'all', 'b']);
    await pool.close();
  });

  it('checks indices when the call is made, not after it waited', async () => {
    const pool = mixedPool();
    await pool.reset();
    let slowDone = false;
    const slow = pool.stepInOrder(['slow'], [0]).then(() => (slowDone = true));
    await expect(pool.stepInOrder(['a'], [9])).rejects.toMatchObject({ code: 'INDEX_OUT_OF_RANGE', message: /env index 9 is out of range/ });
    await expect(pool.stepInOrder(['a', 'b'], [0, 0])).rejects.toMatchObject({ code: 'INVALID_ACTION_BATCH', message: /appears twice/ });
    await expect(pool.stepInOrder(['a'], [0, 1])).rejects.toMatchObject({ code: 'INVALID_ACTION_BATCH' });
    await expect(pool.resetInOrder({ indices: [0, 1], seed: [1] })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(slowDone).toBe(false); // none of them waited for the slow step
    await slow;
    await pool.close();
  });

  it('a bad action fails only its own call, naming the env', async () => {
    const pool = mixedPool();
    await pool.reset();
    const good = pool.stepInOrder(['a'], [1]);
    const bad = pool.stepInOrder([42 as unknown as string], [2]);
    await expect(bad).rejects.toMatchObject({ code: 'INVALID_ACTION_BATCH', message: /env 2/ });
    expect((await good).observations).toEqual(['e1/t1/a']);
    await pool.close();
  });

  it('closeInOrder runs the calls queued before it; later calls fail ENV_CLOSED', async () => {
    const pool = mixedPool();
    await pool.reset();
    const queued = pool.stepInOrder(['slow'], [0]);
    const closed = pool.closeInOrder();
    await expect(queued).resolves.toMatchObject({ indices: [0] });
    await closed;
    expect(pool.closed).toBe(true);
    await expect(pool.stepInOrder(['a'], [1])).rejects.toMatchObject({ code: 'ENV_CLOSED' });
  });

  it('calls that finish inline as the queue drains run once each, in order', async () => {
    const pool = new EnvPool({ envs: [new CountingEnv(9), new CountingEnv(9), new CountingEnv(9)] as Env[] });
    await pool.reset();
    const into = (n: number) => ({
      rows: { observations: new Array<string>(n), rewards: new Float64Array(n), terminated: new Array<boolean>(n), truncated: new Array<boolean>(n), infos: new Array(n) },
      at: Array.from({ length: n }, (_, k) => k),
      errors: new Array(n),
    });
    // Every env has a sync twin, so each call below runs inline once its turn comes; env 0 is in
    // flight (send) until recv, so the whole-pool reset and the two steps behind it wait for that.
    pool.send(['f'], [0]);
    const all = pool.resetInOrder({ seed: 1 });
    const [a, b] = [into(1), into(1)];
    const first = pool.stepEachInOrder(['x'], [1], a);
    const second = pool.stepEachInOrder(['y'], [2], b);
    expect((await pool.recv()).observations).toEqual(['e1/t1/f']);
    const reset = await all;
    await Promise.all([first, second]);
    expect(reset.observations).toEqual(['e2/t0', 'e2/t0', 'e2/t0']); // reset once, not again
    expect([a.rows.observations[0], b.rows.observations[0]]).toEqual(['e2/t1/x', 'e2/t1/y']); // stepped once each, after it
    await pool.close();
  });

  it('resetEachInOrder: each row with its own seed and options at its position; a reset that throws fails alone', async () => {
    class ThrowsOnReset extends CountingEnv {
      protected newEpisode(): never {
        throw new Error('no dataset');
      }
    }
    const pool = new EnvPool({ envs: [new CountingEnv(), new ThrowsOnReset(), new CountingEnv()] });
    const rows = { observations: new Array<string>(4).fill(''), rewards: new Float64Array(4), terminated: new Array(4).fill(false), truncated: new Array(4).fill(false), infos: new Array(4) };
    const errors = new Array(4);
    const opts = { indices: [2, 1, 0], seed: [5, 6, 5], options: [{ idx: 'a' }, { idx: 'b' }, { idx: 'c' }] };
    await pool.resetEachInOrder(opts, { rows, at: [3, 1, 0], errors });
    expect(rows.observations).toEqual(['e1/t0', '', '', 'e1/t0']);
    expect(rows.infos[3]).toMatchObject({ idx: 'a' });
    expect(rows.infos[0]).toMatchObject({ idx: 'c' });
    expect(rows.infos[3].seedDraw).toBe(rows.infos[0].seedDraw); // same seed, same draw
    expect(errors[1]).toMatchObject({ code: 'INTERNAL', message: 'env 1: no dataset', data: { index: 1 } });
    expect(errors.filter(Boolean)).toHaveLength(1);
    // The env whose reset failed needs a reset; its siblings step.
    const stepErrors = new Array(3);
    await pool.stepEachInOrder(['x', 'y', 'z'], [0, 1, 2], { rows, at: [0, 1, 2], errors: stepErrors });
    expect(stepErrors[1]).toMatchObject({ code: 'RESET_NEEDED', data: { index: 1 } });
    expect([rows.observations[0], rows.observations[2]]).toEqual(['e1/t1/x', 'e1/t1/z']);
    // A base seed counts up by env index, as a whole-pool reset does.
    await pool.resetEachInOrder({ indices: [2], seed: 10 }, { rows, at: [0], errors: new Array(1) });
    const whole = new EnvPool({ envs: [new CountingEnv(), new CountingEnv(), new CountingEnv()] });
    const again = await whole.reset({ seed: 10 });
    expect(rows.infos[0].seedDraw).toBe(again.infos[2].seedDraw);
    await expect(pool.resetEachInOrder({ indices: [0], seed: [1, 2] }, { rows, at: [0], errors: new Array(1) })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await pool.close();
    await whole.close();
  });

  it('stepEachInOrder: a row that needs a reset or whose env fails fails alone; the others step', async () => {
    const pool = mixedPool();
    await pool.reset({ indices: [0, 1, 3] });
    const rows = { observations: new Array<string>(6).fill(''), rewards: new Float64Array(6), terminated: new Array(6).fill(false), truncated: new Array(6).fill(false), infos: new Array(6) };
    const errors = new Array(6);
    // Rows go to positions 5, 4, 3, 2 of the caller's columns; env 2 was never reset.
    await pool.stepEachInOrder(['a', 'b', 'c', 42 as unknown as string], [0, 1, 2, 3], { rows, at: [5, 4, 3, 2], errors });
    expect(rows.observations).toEqual(['', '', '', '', 'e1/t1/b', 'e1/t1/a']);
    expect(errors[3]).toMatchObject({ code: 'RESET_NEEDED', data: { index: 2 } });
    expect(errors[2]).toMatchObject({ code: 'INVALID_ACTION_BATCH', data: { index: 3 } });
    expect(errors.filter(Boolean)).toHaveLength(2);
    await pool.resetEachInOrder({ indices: [2], seed: [7] }, { rows, at: [0], errors });
    expect(rows.observations[0]).toBe('e1/t0');
    await pool.close();
  });

  it('waits for envs in flight from send until recv returns them', async () => {
    const pool = mixedPool();
    await pool.reset();
    pool.send(['f'], [3]);
    const log: string[] = [];
    const step = pool.stepInOrder(['g'], [3]).then((r) => log.push(r.observations[0]));
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual([]); // env 3 finished but its row is not received yet
    expect((await pool.recv()).observations).toEqual(['e1/t1/f']);
    await step;
    expect(log).toEqual(['e1/t2/g']);
    await pool.close();
  });
});

describe('EnvPool fairness: a huge batch runs in slices', () => {
  it('another pool is served between the slices of a huge step and a huge reset', async () => {
    const n = SLICE_ABOVE + 4 * SLICE_ROWS; // 8 slices
    const big = new EnvPool({ envs: Array.from({ length: n }, () => new CountingEnv(5)) });
    const small = new EnvPool({ envs: [new CountingEnv(5)] });
    await small.reset();
    const events: string[] = [];
    // The small tenant steps in a loop, one macrotask turn apart, until the big call is done.
    let bigDone = false;
    const smallLoop = (async () => {
      while (!bigDone) {
        await new Promise((r) => setImmediate(r));
        await small.stepInOrder(['s'], [0]);
        events.push('small');
      }
    })();
    const resetRows = await big.resetInOrder({ seed: 0 }).then((r) => (events.push('big reset'), r));
    const stepRows = await big.stepInOrder(new Array(n).fill('b'), Array.from({ length: n }, (_, i) => i));
    events.push('big step');
    bigDone = true;
    await smallLoop;
    expect(resetRows.indices.length).toBe(n);
    expect(stepRows.observations[n - 1]).toBe('e1/t1/b');
    // 8 slices each: at least 4 small steps got in during each big call (counted, not timed).
    const resetAt = events.indexOf('big reset');
    const stepAt = events.indexOf('big step');
    expect(resetAt).toBeGreaterThanOrEqual(4);
    expect(stepAt - resetAt - 1).toBeGreaterThanOrEqual(4);
    await Promise.all([big.close(), small.close()]);
  });

  it("a step still being decoded shows each slice's rows to onSlice as soon as they are written", async () => {
    const n = SLICE_ABOVE + 2 * SLICE_ROWS + 3; // 7 slices, the last one short
    const pool = new EnvPool({ envs: Array.from({ length: n }, () => new CountingEnv(5)) });
    await pool.reset();
    const seen: [number, number][] = [];
    let written = true;
    let batch: unknown;
    const rows = await pool.stepInOrderWhenDecoded(Promise.resolve({ actions: new Array(n).fill('b'), indices: Array.from({ length: n }, (_, i) => i) }), (r, from, to) => {
      batch ??= r;
      written &&= r === batch && r.observations.slice(from, to).every((o) => o === 'e1/t1/b');
      seen.push([from, to]);
    });
    expect(rows).toBe(batch);
    expect(written).toBe(true);
    expect(seen.length).toBe(Math.ceil(n / SLICE_ROWS));
    expect(seen.every(([from, to], k) => from === k * SLICE_ROWS && to === Math.min(n, from + SLICE_ROWS))).toBe(true);
    // A batch small enough to run in one piece never calls it.
    let calls = 0;
    await pool.stepInOrderWhenDecoded(Promise.resolve({ actions: ['b'], indices: [0] }), () => calls++);
    expect(calls).toBe(0);
    await pool.close();
  });

  it('a sync vector env never slices (its stepSync stays synchronous)', async () => {
    const { SyncVectorEnv } = await import('../../src/vector/syncVectorEnv.ts');
    const n = SLICE_ABOVE + 1;
    const v = new SyncVectorEnv({ envs: Array.from({ length: n }, () => new CountingEnv(5)) });
    v.resetSync();
    expect(v.stepSync(new Array(n).fill('a')).indices.length).toBe(n);
  });
});
