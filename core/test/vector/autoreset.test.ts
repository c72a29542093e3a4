/**
 * Exact autoreset tables (Gymnasium's test_autoreset_mode, for GEM's three modes): what each row
 * holds on the terminal step and on the step after, for every executor, for envs with sync twins,
 * envs without (I/O-like), and envs in a worker thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Env } from '../../src/core/env.ts';
import { AsyncVectorEnv } from '../../src/vector/asyncVectorEnv.ts';
import { EnvPool } from '../../src/vector/envPool.ts';
import { makeVec } from '../../src/vector/makeVec.ts';
import { PAST_END_OBSERVATION, type PastEndPolicy } from '../../src/core/pastEnd.ts';
import { SyncVectorEnv } from '../../src/vector/syncVectorEnv.ts';
import type { AutoresetMode, VectorEnv, VectorStepResult } from '../../src/vector/types.ts';
import type { VectorEnvInit } from '../../src/vector/vectorEnvBase.ts';
import { AsyncOnly, CountingEnv } from '../helpers/countingEnv.ts';

type Row = [observation: string, reward: number, terminated: boolean, truncated: boolean];

const executors = {
  sync: (init: VectorEnvInit) => new SyncVectorEnv(init),
  async: (init: VectorEnvInit) => new AsyncVectorEnv(init),
  pool: (init: VectorEnvInit) => new EnvPool(init),
} as const;

/** Two envs: env 0 ends after 3 steps, env 1 after 5, so env 1's rows show nothing happened. */
const flavours: Record<string, (mode: AutoresetMode, exec: keyof typeof executors, pastEnd?: PastEndPolicy) => VectorEnv> = {
  inline: (mode, exec, pastEnd) => executors[exec]({ envs: [new CountingEnv(3), new CountingEnv(5)], autoresetMode: mode, pastEnd }),
  'no sync twins': (mode, exec, pastEnd) =>
    executors[exec]({ envs: [new AsyncOnly(new CountingEnv(3)), new AsyncOnly(new CountingEnv(5))] as Env[], autoresetMode: mode, pastEnd }),
  worker: (mode, exec, pastEnd) =>
    makeVec('test:CountingCpu-v0', {
      vecOptions: [{ length: 3 }, { length: 5 }],
      autoresetMode: mode,
      mode: exec,
      workers: 1,
      ...(pastEnd ? { options: { strict_reset: pastEnd === 'raise' } } : {}),
    }),
};

const rows = (r: VectorStepResult): Row[] => r.observations.map((o, k) => [o, r.rewards[k], r.terminated[k], r.truncated[k]]);

/** Steps both envs; for a pool, through send/recv as well as step, rows put back in index order. */
async function stepBoth(vec: VectorEnv, actions: [string, string], viaSendRecv: boolean): Promise<VectorStepResult> {
  if (!viaSendRecv || !(vec instanceof EnvPool)) return vec.step(actions);
  vec.send([actions[1], actions[0]], [1, 0]);
  const r = await vec.recv();
  expect(r.indices.slice().sort()).toEqual([0, 1]);
  const order = [r.indices.indexOf(0), r.indices.indexOf(1)];
  return {
    indices: [0, 1],
    observations: order.map((k) => r.observations[k]),
    rewards: Float64Array.from(order.map((k) => r.rewards[k])),
    terminated: order.map((k) => r.terminated[k]),
    truncated: order.map((k) => r.truncated[k]),
    infos: order.map((k) => r.infos[k]),
  };
}

interface Case {
  flavour: string;
  exec: keyof typeof executors;
  viaSendRecv: boolean;
}

const cases: Case[] = Object.keys(flavours).flatMap((flavour) =>
  (['sync', 'async', 'pool'] as const).flatMap((exec): Case[] =>
    exec === 'pool' ? [{ flavour, exec, viaSendRecv: false }, { flavour, exec, viaSendRecv: true }] : [{ flavour, exec, viaSendRecv: false }],
  ),
);

describe.each(cases)('$exec / $flavour (send/recv: $viaSendRecv)', ({ flavour, exec, viaSendRecv }) => {
  let vec: VectorEnv | undefined;
  afterEach(async () => {
    await vec?.close();
  });

  async function play(mode: AutoresetMode, steps: number, pastEnd?: PastEndPolicy): Promise<{ table: Row[][]; last: VectorStepResult }> {
    vec = flavours[flavour](mode, exec, pastEnd);
    const reset = await vec.reset({ seed: 10 });
    expect(reset.observations).toEqual(['e1/t0', 'e1/t0']);
    const table: Row[][] = [];
    let last!: VectorStepResult;
    for (let t = 1; t <= steps; t++) {
      last = await stepBoth(vec, [`a${t}`, `b${t}`], viaSendRecv);
      table.push(rows(last));
    }
    return { table, last };
  }

  it('same_step: the ending step returns the new episode’s first observation, terminal data in the info', async () => {
    vec = flavours[flavour]('same_step', exec);
    await vec.reset({ seed: 10 });
    const results: VectorStepResult[] = [];
    for (let t = 1; t <= 4; t++) results.push(await stepBoth(vec, [`a${t}`, `b${t}`], viaSendRecv));
    expect(results.map((r) => rows(r)[0])).toEqual([
      ['e1/t1/a1', 1, false, false],
      ['e1/t2/a2', 2, false, false],
      ['e2/t0', 3, true, false],
      ['e2/t1/a4', 1, false, false],
    ]);
    expect(results.map((r) => rows(r)[1][0])).toEqual(['e1/t1/b1', 'e1/t2/b2', 'e1/t3/b3', 'e1/t4/b4']);
    const terminal = results[2].infos[0];
    expect(terminal).toMatchObject({ episode: 2, final_obs: 'e1/t3/a3', final_info: { t: 3 } });
    expect(results[3].infos[0]).toEqual({ t: 1 });
  });

  it('next_step: the ending step is terminal; the next one ignores its action and resets with reward 0', async () => {
    const { table, last } = await play('next_step', 5);
    expect(table.map((r) => r[0])).toEqual([
      ['e1/t1/a1', 1, false, false],
      ['e1/t2/a2', 2, false, false],
      ['e1/t3/a3', 3, true, false],
      ['e2/t0', 0, false, false],
      ['e2/t1/a5', 1, false, false],
    ]);
    expect(table.map((r) => r[1])).toEqual([
      ['e1/t1/b1', 1, false, false],
      ['e1/t2/b2', 2, false, false],
      ['e1/t3/b3', 3, false, false],
      ['e1/t4/b4', 4, false, false],
      ['e1/t5/b5', 5, true, false],
    ]);
    expect(last.infos[0]).toEqual({ t: 1 });
  });

  it('disabled: an ended env answers a step without playing it (terminated, reward 0, one warning) until reset', async () => {
    const { table } = await play('disabled', 3);
    expect(table[2][0]).toEqual(['e1/t3/a3', 3, true, false]);
    const past = await stepBoth(vec!, ['a4', 'b4'], viaSendRecv);
    expect(rows(past)).toEqual([
      [PAST_END_OBSERVATION, 0, true, false],
      ['e1/t4/b4', 4, false, false],
    ]);
    expect(past.infos[0]).toMatchObject({ episode_over: true, past_end_warning: expect.stringMatching(/env 0 .*stepped after its episode ended.*strict_reset/) });
    const again = await stepBoth(vec!, ['a5', 'b5'], viaSendRecv);
    expect(rows(again)[0]).toEqual([PAST_END_OBSERVATION, 0, true, false]);
    expect(again.infos[0]).toEqual({ episode_over: true }); // warned once per env
    // The env itself was never stepped: after a reset it starts at t1 of a new episode.
    await vec!.reset({ indices: [0], seed: 3 });
    expect(rows(await vec!.step(['a6'], [0]))).toEqual([['e2/t1/a6', 1, false, false]]);
  });

  it('disabled, strict: an ended env refuses to step until reset({indices}) resets just it', async () => {
    const { table } = await play('disabled', 3, 'raise');
    expect(table[2][0]).toEqual(['e1/t3/a3', 3, true, false]);
    await expect(vec!.step(['a4', 'b4'])).rejects.toMatchObject({ code: 'RESET_NEEDED', message: expect.stringMatching(/env 0.*reset\(\{indices/) });
    // Nothing was stepped by the refused batch: env 1 continues at t4.
    const only1 = await vec!.step(['b4'], [1]);
    expect(rows(only1)).toEqual([['e1/t4/b4', 4, false, false]]);
    const r = await vec!.reset({ indices: [0], seed: 3 });
    expect(r.indices).toEqual([0]);
    expect(r.observations).toEqual(['e2/t0']);
    const next = await vec!.step(['a5', 'b5']);
    expect(rows(next)).toEqual([
      ['e2/t1/a5', 1, false, false],
      ['e1/t5/b5', 5, true, false],
    ]);
  });
});

describe('truncation and partial steps', () => {
  it('same_step resets on truncation too, keeping truncated=true on the row', async () => {
    const vec = new SyncVectorEnv({ envs: [new CountingEnv(2, true)] });
    await vec.reset();
    await vec.step(['x']);
    const r = await vec.step(['y']);
    expect(rows(r)).toEqual([['e2/t0', 2, false, true]]);
    expect(r.infos[0]).toMatchObject({ final_obs: 'e1/t2/y' });
  });

  it('a subset step (GEM dict actions) touches only its envs, rows in the order given', async () => {
    for (const Exec of [SyncVectorEnv, AsyncVectorEnv, EnvPool]) {
      const vec = new Exec({ envs: [new CountingEnv(9), new CountingEnv(9), new AsyncOnly(new CountingEnv(9))] as Env[] });
      await vec.reset();
      const r = await vec.step(['p', 'q'], [2, 0]);
      expect(r.indices).toEqual([2, 0]);
      expect(r.observations).toEqual(['e1/t1/p', 'e1/t1/q']);
      const all = await vec.step(['x', 'y', 'z']);
      expect(all.observations).toEqual(['e1/t2/x', 'e1/t1/y', 'e1/t2/z']);
      await vec.close();
    }
  });
});
