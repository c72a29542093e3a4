/**
 * Sync, async and pool executors give identical transcripts for the same seeds and actions, on real
 * games with GEM's wrapper stack — including envs that have no sync twins and so really run
 * concurrently under the async executors.
 */
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/core/env.ts';
import { Rng } from '../../src/core/rng.ts';
import { make } from '../../src/envs/defaultRegistry.ts';
import { AsyncVectorEnv } from '../../src/vector/asyncVectorEnv.ts';
import { EnvPool } from '../../src/vector/envPool.ts';
import { makeVec } from '../../src/vector/makeVec.ts';
import type { AutoresetMode, VectorEnv } from '../../src/vector/types.ts';
import { applyWrappers } from '../../src/envs/defaultWrappers.ts';
import '../../src/envs/index.ts';
import { AsyncOnly } from '../helpers/countingEnv.ts';

const IDS = [
  'game:GuessTheNumber-v0-easy',
  'game:Mastermind-v0-easy',
  'game:Wordle-v0-easy',
  'game:Hangman-v0-easy',
  'game:TowerofHanoi-v0-easy',
  'game:Minesweeper-v0-easy',
];
const WRAPPERS = ['concat_with_action', 'episode_tracking'];
/** A mix of valid-looking, invalid and malformed moves across the games. */
const MOVES = ['\\boxed{3}', '\\boxed{7}', '\\boxed{1 2 3 4}', '\\boxed{crane}', '\\boxed{e}', '\\boxed{0 2}', '\\boxed{A C}', '\\boxed{reveal 1 1}', 'no box', '\\boxed{}'];

async function transcript(vec: VectorEnv, steps: number): Promise<string> {
  const rng = new Rng(99);
  const log: unknown[] = [await vec.reset({ seed: 1000 })];
  for (let t = 0; t < steps; t++) {
    // Step a random subset each turn, as GEM's dict actions do.
    const indices = IDS.map((_, i) => i).filter(() => rng.bool(0.8));
    if (indices.length === 0) continue;
    const r = await vec.step(indices.map(() => rng.choice(MOVES)), indices);
    log.push({ ...r, rewards: [...r.rewards] });
  }
  await vec.close();
  return JSON.stringify(log);
}

describe.each(['same_step', 'next_step'] as AutoresetMode[])('autoreset %s', (autoresetMode) => {
  it('sync, async and pool agree; envs without sync twins agree too', async () => {
    const steps = 40;
    const reference = await transcript(makeVec(IDS, { wrappers: WRAPPERS, seed: 5, autoresetMode }), steps);
    // Several episodes end (and autoreset) within the run.
    expect(reference.match(/"terminated":\[[^\]]*true/g)?.length).toBeGreaterThan(5);
    expect(await transcript(makeVec(IDS, { wrappers: WRAPPERS, seed: 5, autoresetMode, asyncMode: true }), steps)).toBe(reference);
    expect(await transcript(makeVec(IDS, { wrappers: WRAPPERS, seed: 5, autoresetMode, mode: 'pool' }), steps)).toBe(reference);
    // The same envs behind a wrapper that hides their twins, with uneven delays, stepped concurrently.
    const slowish = (i: number): Env => applyWrappers(new AsyncOnly(make(IDS[i], { seed: 5 + i }), (i * 7) % 5), WRAPPERS);
    const envs = IDS.map((_, i) => slowish(i));
    expect(await transcript(new AsyncVectorEnv({ envs, envIds: IDS, autoresetMode }), steps)).toBe(reference);
    const poolEnvs = IDS.map((_, i) => slowish(i));
    expect(await transcript(new EnvPool({ envs: poolEnvs, envIds: IDS, autoresetMode }), steps)).toBe(reference);
  });
});
