import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getEnvAttr, listEnvAttrs, optionAttributes, setEnvAttr, type AttributeTable } from '../../src/core/envAttributes.ts';
import { GemError } from '../../src/core/errors.ts';
import { make } from '../../src/envs/defaultRegistry.ts';
import '../../src/envs/index.ts';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as GemError).code;
  }
  return 'none';
}

describe('env attributes', () => {
  it('a game exposes its options; max_turns changes the running episode', async () => {
    const env = make('game:GuessTheNumber-v0', { min_number: 1, max_number: 500 });
    await env.reset({ seed: 1 });
    expect(await getEnvAttr(env, 'max_turns')).toBe(10);
    await setEnvAttr(env, 'max_turns', 1);
    const r = await env.step('\\boxed{499}');
    expect(r.terminated || r.truncated).toBe(true);
    expect(listEnvAttrs(env).writable).toContain('max_turns');
  });

  it('unknown, read-only and mistyped names are refused, naming what is declared', async () => {
    const env = make('game:GuessTheNumber-v0');
    expect(await code(getEnvAttr(env, 'nope'))).toBe('UNKNOWN_ATTRIBUTE');
    await expect(getEnvAttr(env, 'nope')).rejects.toThrow(/max_turns \(read\/write\)/);
    expect(await code(setEnvAttr(env, 'max_turns', 'x'))).toBe('INVALID_ATTRIBUTE');
    expect(await code(setEnvAttr(env, 'max_turns', 2.5))).toBe('INVALID_ATTRIBUTE');
    const frozen = { options: { a: 1 } };
    const table = optionAttributes(frozen, false);
    expect(table.a.set).toBeUndefined();
  });

  it('an outer layer that declares a name wins; others resolve inwards', async () => {
    const inner = { envAttributes: (): AttributeTable => ({ x: { schema: z.number(), get: () => 1 }, y: { schema: z.number(), get: () => 2 } }) };
    const outer = { env: inner, envAttributes: (): AttributeTable => ({ x: { schema: z.number(), get: () => 10 } }) };
    expect(await getEnvAttr(outer, 'x')).toBe(10);
    expect(await getEnvAttr(outer, 'y')).toBe(2);
    expect(listEnvAttrs(outer)).toEqual({ readable: ['x', 'y'], writable: [] });
    expect(await code(setEnvAttr(outer, 'y', 3))).toBe('UNKNOWN_ATTRIBUTE');
  });

  it('a write to one env does not reach another of the same spec', async () => {
    const a = make('game:GuessTheNumber-v0');
    const b = a.spawn();
    await setEnvAttr(a, 'max_turns', 3);
    expect(await getEnvAttr(b, 'max_turns')).toBe(10);
  });

  it("a math env's answer is read/write and regrades; before a reset it is RESET_NEEDED", async () => {
    const env = make('math:Orz57K', { dataset: [{ problem: 'p', answer: '5' }] });
    expect(await code(setEnvAttr(env, 'answer', '1'))).toBe('RESET_NEEDED');
    await env.reset();
    expect(await getEnvAttr(env, 'answer')).toBe('5');
    await setEnvAttr(env, 'answer', '9');
    expect((await env.step('\\boxed{9}')).reward).toBe(1);
    expect(await getEnvAttr(env, 'dataset')).toEqual([{ problem: 'p', answer: '5' }]);
  });
});
