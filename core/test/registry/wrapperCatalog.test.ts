/** The wrapper catalogue is an object: overlays read through to their base and keep their definitions. */
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/core/env.ts';
import { builtinCatalog, builtinWrappers } from '../../src/envs/builtinCatalog.ts';
import { WrapperCatalog } from '../../src/registry/wrapperCatalog.ts';
import { CountingEnv } from '../helpers/countingEnv.ts';

const identity = (name: string) => ({ name, kind: 'tool' as const, description: 'passes the env through', build: (env: Env) => env });

describe('WrapperCatalog', () => {
  it('an overlay sees its base, defines only into itself, and the base never sees it', () => {
    const base = builtinWrappers();
    const session = base.overlay({ label: 'client session' });
    session.define(identity('session_tool'));
    expect(session.names()).toEqual([...base.names(), 'session_tool']);
    expect(base.has('session_tool')).toBe(false);
    expect(() => base.apply(new CountingEnv(), ['session_tool'])).toThrowError(/Unknown wrapper 'session_tool'/);
    expect(session.apply(new CountingEnv(), ['time_limit', 'session_tool'], { max_episode_steps: 1 }).toString()).toContain('time_limit');
    expect(() => session.define(identity('concat'))).toThrowError(expect.objectContaining({ code: 'ALREADY_REGISTERED' }));
  });

  it('a read-only view refuses definitions and names the catalogue', () => {
    const view = new WrapperCatalog({ label: 'built-in wrappers' }).readonlyView();
    expect(() => view.define(identity('x_tool'))).toThrowError(/The built-in wrappers is read-only; define into an overlay of it/);
  });

  it('builtinCatalog gives fresh objects: what one caller defines, another never sees', () => {
    const a = builtinCatalog();
    const b = builtinCatalog();
    a.wrappers.define(identity('only_in_a'));
    expect(a.wrappers.has('only_in_a')).toBe(true);
    expect(b.wrappers.has('only_in_a')).toBe(false);
    expect(b.wrappers.names()).toEqual(expect.arrayContaining(['concat', 'episode_tracking', 'time_limit', 'python_tool', 'search_tool', 'mcp_tool']));
    expect(a.envs.has('game:GuessTheNumber-v0')).toBe(true);
  });

  it('an unknown name lists the known ones', () => {
    expect(() => builtinWrappers().get('concatt')).toThrowError(/Unknown wrapper 'concatt'\. Known wrappers: concat, concat_with_action/);
  });
});
