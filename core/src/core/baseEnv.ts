/**
 * Base for envs whose logic is synchronous (the games): on top of SeededEnv's streams, spawn and
 * close, a subclass writes `newEpisode` and `applyAction` once and gets the async methods and the
 * sync twins that vector envs run inline. Reset options other than `resetOptionKeys` are refused.
 */
import { GemError } from './errors.ts';
import type { ResetOptions, ResetResult, StepResult } from './env.ts';
import { optionAttributes, type AttributeTable } from './envAttributes.ts';
import { SeededEnv } from './seededEnv.ts';

export abstract class BaseEnv<S, Obs = string, Act = string> extends SeededEnv<S, Obs, Act> {
  /** The reset options this env reads (GEM's reset kwargs); any other is INVALID_OPTIONS, like an unknown make option. */
  protected readonly resetOptionKeys: readonly string[] = [];

  /** Build a fresh episode from `this.rng`. */
  protected abstract newEpisode(options?: Record<string, unknown>): ResetResult<Obs>;
  /** Apply one action to `this.state`. Set `episodeOver` via the returned flags. */
  protected abstract applyAction(action: Act): StepResult<Obs>;
  protected abstract override clone(): BaseEnv<S, Obs, Act>;

  resetSync(opts: ResetOptions = {}): ResetResult<Obs> {
    const unknown = Object.keys(opts.options ?? {}).filter((k) => !this.resetOptionKeys.includes(k));
    if (unknown.length) {
      const takes = this.resetOptionKeys.length ? `it takes ${this.resetOptionKeys.map((k) => `'${k}'`).join(', ')}` : 'it takes none';
      throw new GemError('INVALID_OPTIONS', `Unknown reset option(s) ${unknown.map((k) => `'${k}'`).join(', ')} for '${this.spec?.id ?? this.constructor.name}'; ${takes}.`, {
        options: unknown,
      });
    }
    this.reseed(opts.seed);
    return this.newEpisode(opts.options);
  }

  stepSync(action: Act): StepResult<Obs> {
    return this.applyAction(action);
  }

  reset(opts?: ResetOptions): Promise<ResetResult<Obs>> {
    try {
      return Promise.resolve(this.resetSync(opts));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  step(action: Act): Promise<StepResult<Obs>> {
    try {
      return Promise.resolve(this.stepSync(action));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** GEM keeps constructor arguments as attributes (`env.max_turns`): options are read/write, applied from the next reset. */
  envAttributes(): AttributeTable {
    const self = this as unknown as { options?: Record<string, unknown> };
    return self.options && typeof self.options === 'object' ? optionAttributes(self as { options: Record<string, unknown> }, true) : {};
  }
}
