/** episode_tracking and time_limit: counters in the info, previous episode's totals on reset. */
import { describe, expect, it } from 'vitest';
import { applyWrappers } from '../../src/envs/defaultWrappers.ts';
import { CountingEnv } from '../helpers/countingEnv.ts';

describe('episode_tracking', () => {
  it('counts steps and rewards, and reports the finished episode on the next reset', async () => {
    const env = applyWrappers(new CountingEnv(2), ['episode_tracking']);
    expect((await env.reset()).info).toMatchObject({ step_counter: 0, cumulative_rewards: 0, prev_ep_step_counter: 0, prev_ep_cumulative_rewards: 0 });
    expect((await env.step('a')).info).toMatchObject({ t: 1, step_counter: 1, cumulative_rewards: 1 });
    expect((await env.step('b')).info).toMatchObject({ t: 2, step_counter: 2, cumulative_rewards: 3 });
    expect((await env.reset()).info).toMatchObject({ step_counter: 0, cumulative_rewards: 0, prev_ep_step_counter: 2, prev_ep_cumulative_rewards: 3 });
  });

  it('does not touch the inner env’s info object', async () => {
    const inner = new CountingEnv(3);
    const env = applyWrappers(inner, ['episode_tracking']);
    env.resetSync!();
    const seen = inner.stepSync.bind(inner);
    let innerInfo: object | undefined;
    inner.stepSync = (a: string) => {
      const r = seen(a);
      innerInfo = r.info;
      return r;
    };
    env.stepSync!('a');
    expect(innerInfo).toEqual({ t: 1 });
  });

  it('spawn({sameState}) carries the counters', async () => {
    const env = applyWrappers(new CountingEnv(5), ['episode_tracking']);
    await env.reset();
    await env.step('a');
    expect((await env.spawn({ sameState: true }).step('b')).info).toMatchObject({ step_counter: 2, cumulative_rewards: 3 });
  });
});

describe('time_limit', () => {
  it('truncates at max_episode_steps, leaving terminated as the env said', async () => {
    const env = applyWrappers(new CountingEnv(10), ['time_limit'], { max_episode_steps: 2 });
    await env.reset();
    expect(await env.step('a')).toMatchObject({ terminated: false, truncated: false });
    expect(await env.step('b')).toMatchObject({ terminated: false, truncated: true });
    await env.reset();
    expect(await env.step('c')).toMatchObject({ truncated: false });
  });

  it('keeps a terminal step terminal', async () => {
    const env = applyWrappers(new CountingEnv(2), ['time_limit'], { max_episode_steps: 2 });
    await env.reset();
    await env.step('a');
    expect(await env.step('b')).toMatchObject({ terminated: true, truncated: true });
  });
});
