import { describe, expect, it } from 'vitest';
import type { Env, ResetResult, SpawnOptions, StepResult } from '../../src/core/env.ts';
import { GemError } from '../../src/core/errors.ts';
import { OrderEnforcing, enforceOrder } from '../../src/core/orderEnforcing.ts';
import { make } from '../../src/index.ts';

/** A bare env with no checks of its own: counts to `length`, fails on the action 'boom'. */
class Counter implements Env<string, string> {
  steps = 0;
  closes = 0;
  constructor(
    readonly length = 2,
    readonly stepEndsEpisode?: true,
  ) {}
  get unwrapped(): Env<unknown, unknown> {
    return this as unknown as Env<unknown, unknown>;
  }
  async reset(): Promise<ResetResult> {
    this.steps = 0;
    return { observation: 'start', info: {} };
  }
  async step(action: string): Promise<StepResult> {
    await Promise.resolve();
    if (action === 'boom') throw new GemError('TOOL_ERROR', 'boom');
    this.steps++;
    return { observation: `at ${this.steps}`, reward: 1, terminated: this.steps >= this.length, truncated: false, info: {} };
  }
  async close(): Promise<void> {
    this.closes++;
  }
  sampleRandomAction(): string {
    return 'go';
  }
  spawn(opts: SpawnOptions = {}): Env<string, string> {
    const copy = new Counter(this.length, this.stepEndsEpisode);
    if (opts.sameState) copy.steps = this.steps;
    return copy;
  }
  toString(): string {
    return '<test:Counter>';
  }
}

/** The same with sync twins. */
class SyncCounter extends Counter {
  resetSync(): ResetResult {
    this.steps = 0;
    return { observation: 'start', info: {} };
  }
  stepSync(): StepResult {
    this.steps++;
    return { observation: `at ${this.steps}`, reward: 1, terminated: this.steps >= this.length, truncated: false, info: {} };
  }
}

const RESET_NEEDED = { code: 'RESET_NEEDED', message: 'Cannot step before reset() (or after the episode ended without a reset).' };

describe('OrderEnforcing', () => {
  it('refuses a step before the first reset and after the end, until the next reset', async () => {
    const env = enforceOrder(new Counter());
    await expect(env.step('go')).rejects.toMatchObject(RESET_NEEDED);
    await env.reset();
    expect((await env.step('go')).terminated).toBe(false);
    expect((await env.step('go')).terminated).toBe(true);
    await expect(env.step('go')).rejects.toMatchObject(RESET_NEEDED);
    await env.reset();
    expect((await env.step('go')).observation).toBe('at 1');
  });

  it('a truncated step ends the episode too', async () => {
    const inner = new Counter(99);
    const env = enforceOrder(inner);
    await env.reset();
    inner.step = async () => ({ observation: 'cut', reward: 0, terminated: false, truncated: true, info: {} });
    await env.step('go');
    await expect(env.step('go')).rejects.toMatchObject(RESET_NEEDED);
  });

  it('after close, reset and step are ENV_CLOSED; close twice is fine and reaches the env each time', async () => {
    const inner = new Counter();
    const env = enforceOrder(inner);
    await env.reset();
    await env.close();
    await env.close();
    expect(inner.closes).toBe(2);
    await expect(env.reset()).rejects.toMatchObject({ code: 'ENV_CLOSED', message: 'Cannot reset a closed environment.' });
    await expect(env.step('go')).rejects.toMatchObject({ code: 'ENV_CLOSED', message: 'Cannot step a closed environment.' });
  });

  it('a failed step keeps a multi-step episode going; a failed single-step one is over', async () => {
    const multi = enforceOrder(new Counter(3));
    await multi.reset();
    await expect(multi.step('boom')).rejects.toMatchObject({ code: 'TOOL_ERROR' });
    expect((await multi.step('go')).observation).toBe('at 1');

    const single = enforceOrder(new Counter(1, true));
    await single.reset();
    await expect(single.step('boom')).rejects.toMatchObject({ code: 'TOOL_ERROR' });
    await expect(single.step('go')).rejects.toMatchObject(RESET_NEEDED);
  });

  it('a single-step episode refuses a second step while the first is still running', async () => {
    const env = enforceOrder(new Counter(1, true));
    await env.reset();
    const first = env.step('go');
    await expect(env.step('go')).rejects.toMatchObject(RESET_NEEDED);
    expect((await first).terminated).toBe(true);
  });

  it('keeps sync twins only where the env has them, and enforces the order through them', () => {
    expect(enforceOrder(new Counter()).stepSync).toBeUndefined();
    expect(enforceOrder(new Counter()).resetSync).toBeUndefined();
    const env = enforceOrder(new SyncCounter(1));
    expect(() => env.stepSync!('go')).toThrowError(expect.objectContaining(RESET_NEEDED));
    env.resetSync!();
    expect(env.stepSync!('go').terminated).toBe(true);
    expect(() => env.stepSync!('go')).toThrowError(expect.objectContaining(RESET_NEEDED));
  });

  it('is transparent: prints as the env, unwraps to it, and is applied once', () => {
    const inner = new Counter();
    const env = enforceOrder(inner);
    expect(String(env)).toBe('<test:Counter>');
    expect(env.unwrapped).toBe(inner);
    expect(enforceOrder(env)).toBe(env);
  });

  it('spawn: a copy under its own layer, mid-episode only when the parent is', async () => {
    const env = enforceOrder(new Counter(3));
    await expect(env.spawn({ sameState: true }).step('go')).rejects.toMatchObject(RESET_NEEDED);
    await env.reset();
    await env.step('go');
    const child = env.spawn({ sameState: true });
    expect(child).toBeInstanceOf(OrderEnforcing);
    expect((await child.step('go')).observation).toBe('at 2');
    await expect(env.spawn().step('go')).rejects.toMatchObject(RESET_NEEDED);
    await env.step('go');
    await env.step('go');
    const afterEnd = env.spawn({ sameState: true });
    await expect(afterEnd.step('go')).rejects.toMatchObject(RESET_NEEDED);
    expect((afterEnd.unwrapped as unknown as Counter).steps).toBe(0);
  });

  it("make applies it to every family: games, async games, dataset and turn-based envs", async () => {
    const made = [
      make('game:GuessTheNumber-v0-easy'),
      make('game:WikiGame-v0-easy'),
      make('qa:HotpotQA', { dataset: [{ question: 'Q?', answer: 'A' }] }),
      make('multi:TicTacToe-v0'),
    ];
    for (const env of made) {
      expect(env).toBeInstanceOf(OrderEnforcing);
      await expect(env.step('\\boxed{1}')).rejects.toMatchObject(RESET_NEEDED);
      await env.close();
      await expect(env.reset()).rejects.toMatchObject({ code: 'ENV_CLOSED' });
    }
  });
});
