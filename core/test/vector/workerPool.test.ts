/** cpuBound envs run in worker threads: a heavy step never stalls the event loop or the other envs. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEnv } from '../../src/core/checkEnv.ts';
import type { Env } from '../../src/core/env.ts';
import { register, resolveOptions, unregister } from '../../src/envs/defaultRegistry.ts';
import { makeVec } from '../../src/vector/makeVec.ts';
import type { EnvPoolLike, VectorEnv } from '../../src/vector/types.ts';
import { WorkerPool } from '../../src/vector/workerPool.ts';
import { CountingEnv } from '../helpers/countingEnv.ts';
import '../../src/envs/index.ts';
import { z } from 'zod';

const open: { close(): Promise<void> }[] = [];
const track = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});

/** Counts event-loop turns (setImmediate) while `work` runs. */
async function loopTurnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  running = false;
  return turns;
}

describe('worker pool', () => {
  it('a busy-looping env steps in a worker while a fast env keeps stepping in the event loop', async () => {
    // Env 0 burns 400 ms of CPU per step; env 1 is cheap and lives in the main thread.
    const pool = track(
      makeVec(['test:BusyLoop-v0', 'test:Counting-v0'], { vecOptions: [{ busy_ms: 400 }, { length: 1_000_000 }], mode: 'pool' }),
    ) as EnvPoolLike;
    expect(pool.describe(0)).toBe('<test:BusyLoop-v0 in worker 0>');
    expect(pool.describe(1)).toBe('<test:Counting-v0>');
    await pool.reset();
    pool.send(['heavy'], [0]);
    let fastSteps = 0;
    const turns = await loopTurnsDuring(async () => {
      for (;;) {
        pool.send(['fast'], [1]);
        const r = await pool.recv({ minBatch: 1 });
        fastSteps += r.indices.filter((i) => i === 1).length;
        if (r.indices.includes(0)) {
          expect(r.observations[r.indices.indexOf(0)]).toBe('e1/t1/heavy');
          if (pool.inFlight) await pool.recv();
          return;
        }
      }
    });
    expect(fastSteps).toBeGreaterThan(50);
    expect(turns).toBeGreaterThan(50);
  });

  it('the same env in the event loop (workers: 0) blocks it for the whole step', async () => {
    const vec = track(makeVec('test:BusyLoop-v0', { options: { busy_ms: 100 }, workers: 0, mode: 'pool' })) as EnvPoolLike;
    expect(vec.describe(0)).toBe('<test:BusyLoop-v0>');
    await vec.reset();
    let turns = 0;
    setImmediate(() => turns++);
    vec.send(['heavy'], [0]);
    // send ran the 100 ms step synchronously: no event-loop turn could happen in between.
    expect(turns).toBe(0);
    await vec.recv();
  });

  it('two heavy envs on two workers step in parallel with the loop free', async () => {
    const vec = track(makeVec('test:BusyLoop-v0', { numEnvs: 2, options: { busy_ms: 150 }, workers: 2, asyncMode: true }));
    expect([vec.describe(0), vec.describe(1)]).toEqual(['<test:BusyLoop-v0 in worker 0>', '<test:BusyLoop-v0 in worker 1>']);
    await vec.reset({ seed: 3 });
    const turns = await loopTurnsDuring(() => vec.step(['a', 'b']));
    expect(turns).toBeGreaterThan(10);
  });

  it('worker envs give the same transcript as in-process ones', async () => {
    const play = async (vec: VectorEnv) => {
      const log: unknown[] = [await vec.reset({ seed: 11 })];
      for (let t = 0; t < 7; t++) log.push(await vec.step(['p', 'q', 'r']));
      return JSON.stringify(log);
    };
    const opts = { numEnvs: 3, wrappers: ['concat', 'episode_tracking'], options: { length: 2 } };
    const inWorkers = await play(track(makeVec('test:CountingCpu-v0', { ...opts, workers: 2 })));
    const inLoop = await play(track(makeVec('test:CountingCpu-v0', { ...opts, workers: 0 })));
    expect(inWorkers).toBe(inLoop);
  });

  it('a worker env passes checkEnv', async () => {
    const pool = track(new WorkerPool({ size: 1 }));
    const { spec } = resolveOptions('game:GuessTheNumber-v0-easy', {});
    const env = pool.createEnv(spec, 4);
    await expect(checkEnv(env as Env<unknown, unknown>)).resolves.toBeUndefined();
    await expect(env.step('x')).rejects.toMatchObject({ code: 'ENV_CLOSED' });
  });

  it('an id the worker cannot load fails on first use with the worker’s error code', async () => {
    register({ id: 'test:MainThreadOnly-v0', description: '', schema: z.object({}).strict(), create: () => new CountingEnv(), cpuBound: true });
    try {
      const vec = track(makeVec('test:MainThreadOnly-v0'));
      await expect(vec.reset()).rejects.toMatchObject({ code: 'UNKNOWN_ENV', message: /env 0: .*MainThreadOnly/ });
    } finally {
      unregister('test:MainThreadOnly-v0');
    }
  });

  it('a worker that dies fails its calls with WORKER_FAILED', async () => {
    const vec = track(makeVec(['test:Crash-v0', 'test:CountingCpu-v0'], { workers: 1 }));
    await vec.reset();
    await expect(vec.step(['boom', 'x'])).rejects.toMatchObject({ code: 'WORKER_FAILED', message: /worker 0 exited with code 3/ });
    await expect(vec.reset({ indices: [1] })).rejects.toMatchObject({ code: 'WORKER_FAILED' });
  });

  it('works from the command line (tsx), outside vitest', async () => {
    const probe = fileURLToPath(new URL('../helpers/workerProbe.ts', import.meta.url));
    const { stdout } = await promisify(execFile)('npx', ['tsx', probe], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(out).toEqual({
      describe: '<test:BusyLoop-v0 in worker 0>',
      reset: ['e1/t0', 'e1/t0'],
      step: ['e1/t1/x', 'e1/t1/y'],
    });
  });
});
