/** The built-in env catalogue is filled by functions into a registry of the caller's, never by an import. */
import { describe, expect, it } from 'vitest';
import { builtinCatalog } from '../../src/envs/builtinCatalog.ts';
import { registerBuiltinEnvs } from '../../src/envs/builtinEnvs.ts';
import { registerGames } from '../../src/envs/games/index.ts';
import { EnvRegistry } from '../../src/registry/registry.ts';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import '../../src/envs/index.ts';
import { CountingEnv } from '../helpers/countingEnv.ts';
import { z } from 'zod';

describe('builtinCatalog', () => {
  it('holds the ids the library edge registers, in the same order, in a registry of its own', () => {
    const { envs } = builtinCatalog();
    expect(envs.base).toBeUndefined();
    expect(envs.ids()).toEqual(defaultRegistry.ids().filter((id) => envs.has(id)));
    expect(envs.ids().length).toBeGreaterThan(150);
    const families = [...new Set(envs.ids().map((id) => id.split(':')[0]))];
    expect(families).toEqual(['game', 'math', 'code', 'logic', 'qa', 'rg', 'eval', 'multi', 'webshop', 'openenv']);
    expect(envs.make('game:GuessTheNumber-v0-easy', { seed: 1 }).spec?.options.max_turns).toBe(4);
  });

  it('is independent of the process registry and of other catalogues', () => {
    const a = builtinCatalog().envs;
    const b = builtinCatalog().envs;
    const reg = { id: 'test:OnlyInA-v0', description: 'a test env', schema: z.object({}), create: () => new CountingEnv() };
    a.register(reg);
    expect(b.has('test:OnlyInA-v0')).toBe(false);
    expect(defaultRegistry.has('test:OnlyInA-v0')).toBe(false);
    defaultRegistry.register({ ...reg, id: 'test:OnlyInDefault-v0' });
    try {
      expect(builtinCatalog().envs.has('test:OnlyInDefault-v0')).toBe(false);
    } finally {
      defaultRegistry.unregister('test:OnlyInDefault-v0');
    }
  });

  it('a family registers into the registry it is given, and twice into one is refused', () => {
    const only = new EnvRegistry({ label: 'games only' });
    registerGames(only);
    expect(only.ids().every((id) => id.startsWith('game:'))).toBe(true);
    expect(only.has('game:Sudoku-v0-easy')).toBe(true);
    expect(() => registerBuiltinEnvs(only)).toThrowError(expect.objectContaining({ code: 'ALREADY_REGISTERED' }));
  });
});
