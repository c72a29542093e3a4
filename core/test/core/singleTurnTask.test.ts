import { describe, expect, it } from 'vitest';
import { TERMINAL_STATE, type ResetOptions } from '../../src/core/env.ts';
import { enforceOrder } from '../../src/core/orderEnforcing.ts';
import { SingleTurnTask, readIdxOption, type Graded, type Picked } from '../../src/core/singleTurnTask.ts';

/** Problems are the numbers 0..size-1 shifted by the epoch; the answer is the number itself. */
class Numbers extends SingleTurnTask<number> {
  constructor(readonly size: number) {
    super();
  }
  protected pick(opts: ResetOptions): Picked<number, number> {
    const idx = readIdxOption(opts, this.size, 'number tasks');
    if (idx !== undefined) return { index: idx, problem: idx };
    const { epoch, position } = this.nextInPass(this.size);
    return { index: position, problem: epoch * 100 + position };
  }
  protected prompt(problem: number): string {
    return `say ${problem}`;
  }
  protected async grade(action: string, problem: number): Promise<Graded> {
    if (action === 'boom') throw new Error('grader down');
    return { reward: action === String(problem) ? 1 : 0, info: {} };
  }
  sampleRandomAction(): string {
    return '0';
  }
  protected fork(): Numbers {
    return new Numbers(this.size);
  }
  state(): { index: number } | undefined {
    return this.open ? { index: this.open.index } : undefined;
  }
}

const shown = async (env: { reset(): Promise<{ observation: string }> }, n: number) => {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await env.reset()).observation);
  return out;
};

describe('SingleTurnTask', () => {
  it('passes over the problems in order, then starts a new epoch', async () => {
    expect(await shown(new Numbers(2), 5)).toEqual(['say 0', 'say 1', 'say 100', 'say 101', 'say 200']);
  });

  it('the one step grades the answer and ends with TERMINAL_STATE and both flags', async () => {
    const env = enforceOrder(new Numbers(3));
    await env.reset({ options: { idx: 2 } });
    expect(await env.step('2')).toEqual({ observation: TERMINAL_STATE, reward: 1, terminated: true, truncated: true, info: {} });
    await env.reset({ options: { idx: 2 } });
    expect((await env.step('7')).reward).toBe(0);
    await expect(env.reset({ options: { idx: 3 } })).rejects.toMatchObject({ code: 'INDEX_OUT_OF_RANGE' });
    await expect(env.reset({ options: { level: 1 } })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('number tasks take only') });
  });

  it('a failed reset keeps the problem before it', async () => {
    const env = new Numbers(3);
    await env.reset({ options: { idx: 1 } });
    await expect(env.reset({ options: { idx: 9 } })).rejects.toMatchObject({ code: 'INDEX_OUT_OF_RANGE' });
    expect(env.state()).toEqual({ index: 1 });
  });

  it('the open problem is gone once answered, even when grading failed', async () => {
    const env = new Numbers(3);
    expect(env.state()).toBeUndefined();
    await env.reset({ options: { idx: 1 } });
    expect(env.state()).toEqual({ index: 1 });
    await expect(env.step('boom')).rejects.toThrow('grader down');
    expect(env.state()).toBeUndefined();
  });

  it('spawn continues the pass; with sameState it answers the same open problem', async () => {
    const env = enforceOrder(new Numbers(3));
    await env.reset();
    const twin = env.spawn({ sameState: true });
    expect(await twin.step('0')).toMatchObject({ reward: 1 });
    expect(await shown(env.spawn(), 2)).toEqual(['say 1', 'say 2']);
    expect(await shown(env.spawn({ seed: 5 }), 1)).toEqual(['say 0']);
  });
});
