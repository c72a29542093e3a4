/**
 * History wrappers report the text they keep to a StateMeter as it changes (heldState.ts): counted
 * from each turn's length as it comes and goes, released by reset and close, and found through a
 * wrapper stack by attachStateMeter.
 */
import { describe, expect, it } from 'vitest';
import { EchoEnv } from './echoEnv.ts';
import { attachStateMeter } from '../../src/wrappers/heldState.ts';
import { HistoryObservation, type HistoryMode } from '../../src/wrappers/historyObservation.ts';
import { TimeLimit } from '../../src/wrappers/timeLimit.ts';

function metered(mode: HistoryMode, maxHistoryLength?: number) {
  const env = new HistoryObservation(new EchoEnv(), { mode, maxHistoryLength, chatTemplate: (m) => m.map((x) => x.content).join('|') });
  const meter = { total: 0, add: (d: number) => (meter.total += d) };
  expect(attachStateMeter(env, meter)).toBe(true);
  return { env, meter };
}

describe('history wrappers report what they keep', () => {
  it('concat counts the observations it keeps; reset starts again; close frees all', async () => {
    const { env, meter } = metered('concat');
    await env.reset();
    await env.step('abcd');
    await env.step('ef');
    // start + heard abcd + heard ef
    expect(env.heldBytes()).toBe(5 + 10 + 8);
    expect(meter.total).toBe(env.heldBytes());
    await env.reset();
    expect(meter.total).toBe(5);
    await env.close();
    expect(meter.total).toBe(0);
  });

  it('the action modes count actions too', async () => {
    for (const mode of ['concat_with_action', 'concat_chat', 'concat_chat_on_reset'] as const) {
      const { env, meter } = metered(mode);
      const first = (await env.reset()).observation;
      await env.step('abcd');
      const start = mode === 'concat_chat_on_reset' ? first.length : 5;
      expect(meter.total, mode).toBe(start + 4 + 10);
    }
  });

  it('max_history_length takes off what the oldest turns held', async () => {
    const { env, meter } = metered('concat_with_action', 1);
    await env.reset();
    await env.step('abcd');
    await env.step('ef');
    // Kept: heard abcd, ef, heard ef
    expect(meter.total).toBe(10 + 2 + 8);
    expect(env.heldBytes()).toBe(meter.total);
  });

  it('a meter attached mid-episode starts from what is held; a stack without history attaches nothing', async () => {
    const env = new TimeLimit(new HistoryObservation(new EchoEnv(), { mode: 'concat' }), 10);
    await env.reset();
    await env.step('abc');
    const meter = { total: 0, add: (d: number) => (meter.total += d) };
    expect(attachStateMeter(env, meter)).toBe(true);
    expect(meter.total).toBe(5 + 9);
    expect(attachStateMeter(new TimeLimit(new EchoEnv(), 10), meter)).toBe(false);
  });
});
