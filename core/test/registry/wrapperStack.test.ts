/** Wrapper stacks from a catalogue: GEM's names build GEM's stacks, in a checked order, with validated options. */
import { describe, expect, it } from 'vitest';
import { checkEnv } from '../../src/core/checkEnv.ts';
import type { Env } from '../../src/core/env.ts';
import { make } from '../../src/envs/defaultRegistry.ts';
import { builtinWrappers } from '../../src/envs/builtinCatalog.ts';
import type { WrapperDefinition } from '../../src/registry/wrapperKinds.ts';
import { parseWrapperNames, type WrapperNames, type WrapperOptions } from '../../src/registry/wrapperStack.ts';
import { EpisodeTracking } from '../../src/wrappers/episodeTracking.ts';
import { HookWrapper } from '../../src/wrappers/hookWrapper.ts';
import type { ResetResult, StepResult } from '../../src/core/env.ts';
import '../../src/envs/index.ts';
import { AsyncOnly, CountingEnv } from '../helpers/countingEnv.ts';

const game = () => make('game:GuessTheNumber-v0-easy', { seed: 1 });

// This file's own catalogue: what it defines stays here.
const catalog = builtinWrappers();
const applyWrappers = (env: Env<any, any>, names: WrapperNames, options?: WrapperOptions) => catalog.apply(env, names, options);
const isReordered = (names: string[]) => catalog.isReordered(names);
const listWrappers = () => catalog.names();
const defineWrapper = (def: WrapperDefinition<any>) => catalog.define(def);

describe('applyWrappers', () => {
  it('builds the stack innermost first and prints it by GEM names', () => {
    const env = applyWrappers(game(), ['concat', 'episode_tracking']);
    expect(env.toString()).toBe('<episode_tracking<concat<game:GuessTheNumber-v0-easy>>>');
    expect(env).toBeInstanceOf(EpisodeTracking);
    expect(env.unwrapped.toString()).toBe('<game:GuessTheNumber-v0-easy>');
    expect(env.spec?.id).toBe('game:GuessTheNumber-v0-easy');
  });

  it("accepts GEM's comma string", () => {
    expect(parseWrapperNames(' concat, episode_tracking ,')).toEqual(['concat', 'episode_tracking']);
    expect(applyWrappers(game(), 'time_limit,concat', { max_episode_steps: 2 }).toString()).toBe('<concat<time_limit<game:GuessTheNumber-v0-easy>>>');
  });

  it('rejects a wrong order and says the right one', () => {
    expect(() => applyWrappers(game(), ['concat', 'time_limit'])).toThrowError(
      expect.objectContaining({
        code: 'INVALID_WRAPPER',
        message: expect.stringMatching(/'time_limit' \(limit\) cannot wrap 'concat' \(observation\).*limit \(time_limit\) → tool .* → observation \(concat, .*\) → tracking \(episode_tracking\).*e\.g\. \[time_limit, concat\]/),
      }),
    );
  });

  it("builds GEM's other orders as given (GEM applies wrappers in the order named)", () => {
    expect(applyWrappers(game(), ['episode_tracking', 'concat']).toString()).toBe('<concat<episode_tracking<game:GuessTheNumber-v0-easy>>>');
    expect(isReordered(['episode_tracking', 'concat'])).toBe(true);
    expect(isReordered(['concat', 'episode_tracking'])).toBe(false);
  });

  it('rejects two observation wrappers and a repeated name', () => {
    expect(() => applyWrappers(game(), ['concat', 'concat_with_action'])).toThrowError(/both observation wrappers; a stack takes one/);
    expect(() => applyWrappers(game(), ['episode_tracking', 'episode_tracking'])).toThrowError(/appears twice/);
  });

  it('names the known wrappers for an unknown name', () => {
    expect(() => applyWrappers(game(), ['concatt'])).toThrowError(
      expect.objectContaining({ code: 'INVALID_WRAPPER', message: expect.stringMatching(/Unknown wrapper 'concatt'\. Known wrappers: concat, concat_with_action, .*episode_tracking/) }),
    );
  });

  it('rejects options no wrapper reads, and ill-typed ones', () => {
    expect(() => applyWrappers(game(), ['concat'], { max_history: 2 })).toThrowError(
      expect.objectContaining({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/'max_history' not read by any wrapper in \[concat\]; they read: max_history_length/) }),
    );
    expect(() => applyWrappers(game(), ['concat'], { max_history_length: -1 })).toThrowError(/option 'max_history_length'/);
    expect(() => applyWrappers(game(), ['time_limit'])).toThrowError(/wrapper time_limit.*max_episode_steps/);
  });

  it('keeps sync twins only when the inner env has them', () => {
    expect(applyWrappers(new CountingEnv(), ['concat', 'episode_tracking']).stepSync).toBeTypeOf('function');
    const overAsync = applyWrappers(new AsyncOnly(new CountingEnv()), ['concat', 'episode_tracking']);
    expect(overAsync.stepSync).toBeUndefined();
    expect(overAsync.resetSync).toBeUndefined();
  });

  // episode_tracking is left out: its reset info reports the previous episode, so two seeded resets differ by design.
  it.each([[['concat'], {}], [['concat_with_action'], { max_history_length: 1 }], [['time_limit', 'concat_chat'], { max_episode_steps: 3, chat_template: 'qwen' }]])(
    'a wrapped game passes checkEnv: %j',
    async (names, options) => {
      const env = applyWrappers(game(), names as string[], options);
      await expect(checkEnv(env as Env<unknown, unknown>)).resolves.toBeUndefined();
    },
  );
});

/** A tool-kind wrapper defined from outside, as the tools module does. */
class Shout extends HookWrapper {
  readonly wrapperName = 'test_shout_tool';
  protected afterReset(r: ResetResult): ResetResult {
    return r;
  }
  protected afterStep(_a: string, r: StepResult): StepResult {
    return { ...r, observation: r.observation.toUpperCase() };
  }
  protected rewrap(inner: Env): Shout {
    return new Shout(inner);
  }
  protected copyStateTo(): void {}
}

describe('defineWrapper', () => {
  defineWrapper({ name: 'test_shout_tool', kind: 'tool', description: 'upper-cases feedback', build: (env) => new Shout(env) });

  it('adds a name that takes its place in the order', async () => {
    expect(listWrappers()).toContain('test_shout_tool');
    const env = applyWrappers(new CountingEnv(), ['test_shout_tool', 'concat']);
    await env.reset();
    expect((await env.step('a')).observation).toBe('e1/t0\nE1/T1/A\n');
    expect(() => applyWrappers(new CountingEnv(), ['test_shout_tool', 'time_limit'])).toThrowError(/e\.g\. \[time_limit, test_shout_tool\]/);
  });

  it('refuses a duplicate name, a bad name and a bad kind', () => {
    const build = (env: Env) => env;
    expect(() => defineWrapper({ name: 'concat', kind: 'observation', description: '', build })).toThrowError(
      expect.objectContaining({ code: 'ALREADY_REGISTERED' }),
    );
    expect(() => defineWrapper({ name: 'Bad-Name', kind: 'tool', description: '', build })).toThrowError(/snake_case/);
    expect(() => defineWrapper({ name: 'odd', kind: 'weird' as never, description: '', build })).toThrowError(/kind must be one of limit, tool, observation, tracking/);
  });
});

describe('env.spec and makeFromSpec', () => {
  it('a spec carries the resolved options and the wrapper stack, and makes the same env again', async () => {
    const { makeVec } = await import('../../src/vector/makeVec.ts');
    const { makeFromSpec } = await import('../../src/envs/defaultWrappers.ts');
    const vec = makeVec('game:GuessTheNumber-v0', {
      numEnvs: 2,
      options: { maxTurns: 2, min_number: 1, max_number: 3 },
      wrappers: ['time_limit', 'concat_chat'],
      wrapperOptions: { max_episode_steps: 5, chat_template: 'qwen' },
    });
    const spec = (vec as unknown as { envAt(i: number): Env }).envAt(1).spec!;
    // Not the registered preset (max_turns 10): what this env was made with.
    expect(spec).toMatchObject({
      id: 'game:GuessTheNumber-v0',
      options: { max_turns: 2, min_number: 1, max_number: 3 },
      wrappers: ['time_limit', 'concat_chat'],
      wrapperOptions: { max_episode_steps: 5, chat_template: 'qwen' },
    });
    const again = makeFromSpec(JSON.parse(JSON.stringify(spec)));
    expect(again.toString()).toBe(vec.describe(1));
    const first = await vec.reset({ seed: 7 });
    expect((await again.reset({ seed: 8 })).observation).toBe(first.observations[1]); // env 1 got seed 7 + 1
    expect(again.spec?.options).toEqual(spec.options);
    await vec.close();
  });

  it('a bare env made from its spec is the bare env; a non-spec is a clear error', async () => {
    const { makeFromSpec } = await import('../../src/envs/defaultWrappers.ts');
    const env = make('game:GuessTheNumber-v0-easy', { max_turns: 3 });
    expect(makeFromSpec(env.spec!).toString()).toBe(env.toString());
    expect(makeFromSpec(env.spec!).spec?.options).toMatchObject({ max_turns: 3 });
    expect(() => makeFromSpec(42 as never)).toThrowError(/give an EnvSpec/);
  });
});
