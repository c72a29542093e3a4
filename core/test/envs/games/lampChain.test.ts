import { describe, expect, it } from 'vitest';
import { make } from '../../../src/index.ts';

const litLamp = (observation: string) => Number(/lamp (\d+) is lit\.$/.exec(observation)![1]);

describe('game:LampChain', () => {
  it('pays every turn: 1 per lit lamp pressed, 5 for a perfect game of 5 turns', async () => {
    const env = make('game:LampChain-v0');
    let { observation } = await env.reset({ seed: 3 });
    expect(observation).toMatch(/3 lamps, numbered 1 to 3, and 5 turns/);
    const rewards: number[] = [];
    for (let t = 1; t <= 5; t++) {
      expect(observation).toMatch(new RegExp(`Turn ${t}: lamp [1-3] is lit\\.$`));
      const r = await env.step(`\\boxed{${litLamp(observation)}}`);
      rewards.push(r.reward);
      expect(r.terminated).toBe(t === 5);
      observation = r.observation;
    }
    expect(rewards).toEqual([1, 1, 1, 1, 1]);
    expect(observation).toMatch(/Game over: 5 of 5 lamps pressed/);
  });

  it('a miss pays 0 and halves the next hit: the outcome depends on the turn before', async () => {
    const env = make('game:LampChain-v0');
    let { observation } = await env.reset({ seed: 5 });
    const wrong = (lit: number) => (lit % 3) + 1;
    const plan = ['miss', 'hit', 'hit', 'miss', 'miss'];
    const rewards: number[] = [];
    for (const move of plan) {
      const lit = litLamp(observation);
      const r = await env.step(`\\boxed{${move === 'hit' ? lit : wrong(lit)}}`);
      rewards.push(r.reward);
      if (move === 'miss') expect(r.observation).toMatch(new RegExp(`^Miss, lamp ${lit} was lit\\.`));
      observation = r.observation;
    }
    expect(rewards).toEqual([0, 0.5, 1, 0, 0]);
    expect(observation).toMatch(/2 of 5 lamps pressed/);
  });

  it('the lamps are fixed by the seed, whatever is pressed', async () => {
    const lamps = async (press: (lit: number) => number) => {
      const env = make('game:LampChain-v0-hard');
      let { observation } = await env.reset({ seed: 42 });
      const seen: number[] = [];
      for (let t = 0; t < 8; t++) {
        seen.push(litLamp(observation));
        const r = await env.step(`\\boxed{${press(seen.at(-1)!)}}`);
        if (t < 7) observation = r.observation;
      }
      return seen;
    };
    const a = await lamps((lit) => lit);
    expect(a).toEqual(await lamps(() => 1));
    expect(new Set(a).size).toBeGreaterThan(1);
    expect(a.every((k) => k >= 1 && k <= 4)).toBe(true);
  });

  it('ends on a format error with −0.1, like the other games', async () => {
    const env = make('game:LampChain-v0');
    await env.reset({ seed: 1 });
    const r = await env.step('lamp two');
    expect(r).toMatchObject({ reward: -0.1, terminated: true, truncated: false, info: { format_error: true } });
  });

  it('rejects bad options with a clear error', () => {
    expect(() => make('game:LampChain-v0', { num_lamps: 1 })).toThrow(/num_lamps/);
    expect(() => make('game:LampChain-v0', { num_turns: 0 })).toThrow(/num_turns/);
  });

  it('random actions are valid presses', () => {
    const env = make('game:LampChain-v0');
    for (let i = 0; i < 20; i++) expect(env.sampleRandomAction()).toMatch(/^\\boxed\{[1-3]\}$/);
  });
});
