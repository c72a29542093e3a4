import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BaseEnv } from '../../src/core/baseEnv.ts';
import type { ResetResult, StepResult } from '../../src/core/env.ts';
import { defaultRegistry, EnvRegistry, listEnvs, make } from '../../src/index.ts';

class Echo extends BaseEnv<null> {
  protected newEpisode(): ResetResult {
    return { observation: 'echo', info: {} };
  }
  protected applyAction(a: string): StepResult {
    return { observation: a, reward: 0, terminated: true, truncated: false, info: {} };
  }
  sampleRandomAction(): string {
    return 'x';
  }
  protected clone(): Echo {
    return new Echo();
  }
}
const echo = (id: string) => ({ id, description: 'echo', schema: z.object({}).strict(), create: () => new Echo() });

describe('registry', () => {
  it('names the closest ids for an unknown id', () => {
    expect(() => make('game:GuessTheNumbr-v0-easy')).toThrowError(/Did you mean: game:GuessTheNumber-v0-easy/);
    try {
      make('game:GuessTheNumbr-v0-easy');
    } catch (e) {
      expect(e).toMatchObject({ code: 'UNKNOWN_ENV' });
    }
  });

  it('rejects an id that does not follow the grammar', () => {
    expect(() => make('not an id')).toThrowError(expect.objectContaining({ code: 'INVALID_ENV_ID' }));
  });

  it('names an unknown option and lists the known ones', () => {
    expect(() => make('game:GuessTheNumber-v0-easy', { max_turn: 3 })).toThrowError(/unknown option 'max_turn'.*known options: .*max_turns/);
  });

  it('names an ill-typed option and the expected type', () => {
    expect(() => make('game:GuessTheNumber-v0-easy', { max_turns: 'five' })).toThrowError(/option 'max_turns': expected number/);
  });

  it('accepts camelCase options and lets the caller override the preset', async () => {
    const env = make('game:GuessTheNumber-v0-easy', { maxTurns: 2, seed: 5 });
    expect(env.spec?.options).toMatchObject({ max_turns: 2, min_number: 1, max_number: 10 });
    const { observation } = await env.reset();
    expect(observation).toMatch(/2 turns/);
  });

  it('filters listEnvs', () => {
    expect(listEnvs('guessthe')).toContain('game:GuessTheNumber-v0-easy');
  });
});

describe('EnvRegistry overlays', () => {
  it('read through to the catalog and keep their registrations to themselves', () => {
    const a = defaultRegistry.overlay();
    const b = defaultRegistry.overlay();
    a.register(echo('custom:Echo-v0'));
    expect(a.has('custom:Echo-v0')).toBe(true);
    expect(b.has('custom:Echo-v0')).toBe(false);
    expect(defaultRegistry.has('custom:Echo-v0')).toBe(false);
    expect(() => b.make('custom:Echo-v0')).toThrow(expect.objectContaining({ code: 'UNKNOWN_ENV' }));
    expect(a.make('custom:Echo-v0').toString()).toMatch(/Echo/);
    expect(a.list('GuessTheNumber')).toEqual(defaultRegistry.list('GuessTheNumber'));
    expect(a.list().at(-1)).toBe('custom:Echo-v0');
    // An overlay cannot shadow a catalog id, and a read-only view refuses writes.
    expect(() => a.register(echo('game:GuessTheNumber-v0'))).toThrow(expect.objectContaining({ code: 'ALREADY_REGISTERED' }));
    expect(() => defaultRegistry.readonlyView().register(echo('custom:Other-v0'))).toThrow(/read-only/);
    expect(a.unregister('custom:Echo-v0')).toBe(true);
    expect(a.has('custom:Echo-v0')).toBe(false);
  });

  it('accept shared/ ids', () => {
    const r = new EnvRegistry();
    r.register(echo('shared/custom:Pub-v0'));
    expect(r.spec('shared/custom:Pub-v0').family).toBe('custom');
  });
});

describe('option bindings', () => {
  // A registration's binding turns options that name data into the data, in the registry's scope;
  // the registry itself knows no option by name (a `dataset` option without a binding is plain).
  const lookup = { table: [{ q: 'from the scope' }] };
  const binding = {
    take: (o: Record<string, unknown>) => (Array.isArray(o.source) ? { bound: { source: o.source }, rest: { ...o, source: undefined } } : { rest: o }),
    bind: (id: string, o: Record<string, unknown>, scope: { datasets?: unknown }) =>
      o.source === 'table' ? { source: (scope.datasets as typeof lookup).table } : undefined,
  };
  const seen: unknown[] = [];
  const reg = (id: string, withBinding: boolean) => ({
    id,
    description: 'binds',
    schema: z.object({ source: z.string().optional(), dataset: z.string().optional() }).strict(),
    create: (o: Record<string, unknown>) => (seen.push(o.source ?? o.dataset), new Echo()),
    ...(withBinding ? { binding } : {}),
  });

  it('bind replaces the option with what the registry holds, after validation', () => {
    const r = new EnvRegistry({ datasets: lookup as never, label: 'test' });
    r.register(reg('test:Bound-v0', true));
    expect(r.resolveOptions('test:Bound-v0', { source: 'table' }).spec.options.source).toEqual([{ q: 'from the scope' }]);
    expect(r.resolveOptions('test:Bound-v0', { source: 'other' }).spec.options.source).toBe('other');
    expect(() => r.resolveOptions('test:Bound-v0', { source: 3 })).toThrowError(/option 'source': expected string/);
  });

  it('take sets aside what was bound already, so it is not validated again', () => {
    const r = new EnvRegistry({ label: 'test' });
    r.register(reg('test:Bound-v0', true));
    r.make('test:Bound-v0', { source: [{ q: 'bound in a parent thread' }] });
    expect(seen.at(-1)).toEqual([{ q: 'bound in a parent thread' }]);
  });

  it('an env without a binding gets its dataset option as given', () => {
    const r = new EnvRegistry({ datasets: lookup as never, label: 'test' });
    r.register(reg('test:Plain-v0', false));
    r.make('test:Plain-v0', { dataset: 'table' });
    expect(seen.at(-1)).toBe('table');
  });
});
