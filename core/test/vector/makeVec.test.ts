/** makeVec: GEM's make_vec arguments, seeds seed + i, wrappers, per-env reset options. */
import { describe, expect, it } from 'vitest';
import { make } from '../../src/envs/defaultRegistry.ts';
import { AsyncVectorEnv } from '../../src/vector/asyncVectorEnv.ts';
import { EnvPool } from '../../src/vector/envPool.ts';
import { makeVec } from '../../src/vector/makeVec.ts';
import { SyncVectorEnv } from '../../src/vector/syncVectorEnv.ts';
import '../../src/envs/index.ts';
import '../helpers/countingEnv.ts';

const GTN = 'game:GuessTheNumber-v0-easy';

describe('makeVec', () => {
  it('picks the executor and autoreset mode', () => {
    expect(makeVec(GTN)).toBeInstanceOf(SyncVectorEnv);
    expect(makeVec(GTN, { asyncMode: true })).toBeInstanceOf(AsyncVectorEnv);
    expect(makeVec(GTN, { mode: 'pool', autoresetMode: 'next_step' })).toMatchObject({ autoresetMode: 'next_step', numEnvs: 1 });
    expect(makeVec(GTN, { mode: 'pool' })).toBeInstanceOf(EnvPool);
    expect(makeVec(GTN).autoresetMode).toBe('same_step');
  });

  it('builds env i with seed + i (default seed 0, as GEM)', async () => {
    const vec = makeVec(GTN, { numEnvs: 3, seed: 40 });
    const first = await vec.reset();
    for (let i = 0; i < 3; i++) {
      expect(first.observations[i]).toBe((await make(GTN, { seed: 40 + i }).reset()).observation);
    }
    const dflt = await makeVec(GTN, { numEnvs: 2 }).reset();
    expect(dflt.observations[1]).toBe((await make(GTN, { seed: 1 }).reset()).observation);
  });

  it('reset({seed}) gives env i seed + i, a list gives one each, a subset keeps env indices', async () => {
    const vec = makeVec('test:Counting-v0', { numEnvs: 3 });
    const solo = async (seed: number) => (await make('test:Counting-v0').reset({ seed })).info.seedDraw;
    const all = await vec.reset({ seed: 7 });
    expect(all.infos.map((i) => i.seedDraw)).toEqual([await solo(7), await solo(8), await solo(9)]);
    const listed = await vec.reset({ seed: [100, 200, 300] });
    expect(listed.infos.map((i) => i.seedDraw)).toEqual([await solo(100), await solo(200), await solo(300)]);
    const sub = await vec.reset({ seed: 7, indices: [2] });
    expect(sub.infos[0].seedDraw).toBe(await solo(9));
  });

  it('passes per-env reset options (one object for all, or one per env)', async () => {
    const vec = makeVec('test:Counting-v0', { numEnvs: 2 });
    expect((await vec.reset({ options: { idx: 4 } })).infos.map((i) => i.idx)).toEqual([4, 4]);
    expect((await vec.reset({ options: [{ idx: 1 }, { idx: 2 }] })).infos.map((i) => i.idx)).toEqual([1, 2]);
  });

  it("merges GEM's vec_kwargs under the shared options, and makes a multi-task vector from a list", async () => {
    const vec = makeVec(['test:Counting-v0', GTN], { vecOptions: [{ length: 1 }, { max_turns: 2 }], options: {} });
    expect(vec.envIds).toEqual(['test:Counting-v0', GTN]);
    await vec.reset();
    const r = await vec.step(['a', '\\boxed{0}']);
    expect([...r.terminated]).toEqual([true, true]);
    const shared = makeVec('test:Counting-v0', { vecOptions: [{ length: 1 }, { length: 1 }], options: { length: 5 } });
    await shared.reset();
    expect((await shared.step(['a', 'b'])).terminated).toEqual([false, false]);
  });

  it('wraps every env, and envs of one id and options share one spec', () => {
    const vec = makeVec(GTN, { numEnvs: 3, wrappers: ['concat', 'episode_tracking'] });
    expect(vec.describe(2)).toBe('<episode_tracking<concat<game:GuessTheNumber-v0-easy>>>');
    expect(String(vec)).toBe('SyncVectorEnv(3 × <episode_tracking<concat<game:GuessTheNumber-v0-easy>>>, autoreset=same_step)');
    const envs = (vec as unknown as { envs: { spec: unknown }[] }).envs;
    expect(envs[0].spec).toBe(envs[2].spec);
    expect(envs[0].spec).toMatchObject({ wrappers: ['concat', 'episode_tracking'] });
  });

  it('samples random actions from each env’s own stream, and exposes each sub-env', async () => {
    const vec = makeVec(GTN, { numEnvs: 3 }) as SyncVectorEnv;
    await vec.reset({ seed: 2 });
    const solo = make(GTN);
    await solo.reset({ seed: 3 });
    const sampled = vec.sampleRandomActions([1, 0]);
    expect(sampled[0]).toBe(solo.sampleRandomAction());
    expect(sampled[1]).toMatch(/^\\boxed\{\d+\}$/);
    expect(vec.sampleRandomActions()).toHaveLength(3);
    expect(vec.envAt(2).toString()).toBe('<game:GuessTheNumber-v0-easy>');
    expect(() => vec.sampleRandomActions([3])).toThrowError(expect.objectContaining({ code: 'INDEX_OUT_OF_RANGE' }));
  });

  it('says what is wrong with its arguments', () => {
    expect(() => makeVec(GTN, { numEnvs: 0 })).toThrowError(/numEnvs must be a positive integer/);
    expect(() => makeVec([GTN, GTN], { numEnvs: 3 })).toThrowError(/numEnvs \(3\) differs from the 2 ids/);
    expect(() => makeVec(GTN, { numEnvs: 2, vecOptions: [{}] })).toThrowError(/one options object per env \(2\)/);
    expect(() => makeVec(GTN, { mode: 'threads' as never })).toThrowError(/mode 'threads'/);
    expect(() => makeVec(GTN, { autoresetMode: 'always' as never })).toThrowError(/autoreset mode 'always'/);
    expect(() => makeVec(GTN, { seed: Number.NaN })).toThrowError(/seed must be a finite number/);
    expect(() => makeVec('game:GuessTheNumbr-v0-easy')).toThrowError(expect.objectContaining({ code: 'UNKNOWN_ENV' }));
    expect(() => makeVec(GTN, { options: { max_turn: 3 } })).toThrowError(/unknown option 'max_turn'/);
    expect(() => makeVec(GTN, { wrappers: ['concat', 'time_limit'] })).toThrowError(expect.objectContaining({ code: 'INVALID_WRAPPER' }));
    expect(() => makeVec([])).toThrowError(/non-empty list/);
  });
});
