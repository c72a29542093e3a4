import { describe, expect, it } from 'vitest';
import type { ResetOptions, ResetResult, StepResult } from '../../src/core/env.ts';
import { SeededEnv } from '../../src/core/seededEnv.ts';

/** An async env whose episode is a list of draws from its seeded stream. */
class Draws extends SeededEnv<{ draws: number[] }> {
  async reset(opts: ResetOptions = {}): Promise<ResetResult> {
    this.reseed(opts.seed);
    this.state = { draws: [this.rng.int(0, 1000)] };
    return { observation: String(this.state.draws), info: {} };
  }
  async step(): Promise<StepResult> {
    this.state.draws.push(this.rng.int(0, 1000));
    return { observation: String(this.state.draws), reward: 0, terminated: false, truncated: false, info: {} };
  }
  sampleRandomAction(): string {
    return String(this.actionRng.int(0, 9));
  }
  protected clone(): Draws {
    return new Draws();
  }
}

describe('SeededEnv', () => {
  it('reset({seed}) makes the episode and the sampled actions a pure function of the seed', async () => {
    const [a, b] = [new Draws(1), new Draws(2)];
    const first = [(await a.reset({ seed: 9 })).observation, (await a.step()).observation, a.sampleRandomAction()];
    const second = [(await b.reset({ seed: 9 })).observation, (await b.step()).observation, b.sampleRandomAction()];
    expect(second).toEqual(first);
  });

  it('spawn continues the streams; spawn({seed}) restarts them like a fresh env of that seed', async () => {
    const env = new Draws(3);
    await env.reset();
    const copy = env.spawn();
    expect((await copy.reset()).observation).toBe((await env.reset()).observation);
    const seeded = env.spawn({ seed: 4 });
    expect((await seeded.reset()).observation).toBe((await new Draws(4).reset()).observation);
  });

  it('spawn({sameState}) deep-copies the episode: the copy continues alike and apart', async () => {
    const env = new Draws(5);
    await env.reset();
    await env.step();
    const copy = env.spawn({ sameState: true });
    const [mine, theirs] = [await env.step(), await copy.step('x')];
    expect(theirs.observation).toBe(mine.observation);
    await env.step();
    expect((await copy.step('x')).observation.split(',')).toHaveLength(4);
  });

  it('prints as its spec id, or its class before it has one', () => {
    const env = new Draws();
    expect(String(env)).toBe('<Draws>');
    env.spec = { id: 'test:Draws-v0', family: 'test', description: 'draws', options: {} };
    expect(String(env)).toBe('<test:Draws-v0>');
  });
});
