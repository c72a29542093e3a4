/**
 * Base for envs whose logic is synchronous and whose whole episode state is plain data. Subclasses
 * keep mutable episode state in `this.state` (cloneable by structuredClone) and draw randomness only
 * from `this.rng`; the base then gives them the async methods, seeding, spawn and close for free.
 */
import { Rng } from './rng.ts';
import { EnvClosedError, GemError, ResetNeededError } from './errors.ts';
import type { Env, ResetOptions, ResetResult, SpawnOptions, StepResult } from './env.ts';
import type { EnvSpec } from './spec.ts';
import { optionAttributes, type AttributeTable } from './envAttributes.ts';

export abstract class BaseEnv<S, Obs = string, Act = string> implements Env<Obs, Act> {
  spec?: EnvSpec;
  protected rng: Rng;
  /** Separate stream for sampleRandomAction, so sampling actions never changes the episode. */
  protected actionRng: Rng;
  protected state!: S;
  protected needsReset = true;
  protected closed = false;
  /** The reset options this env reads (GEM's reset kwargs); any other is INVALID_OPTIONS, like an unknown make option. */
  protected readonly resetOptionKeys: readonly string[] = [];

  constructor(seed?: number) {
    this.rng = new Rng(seed);
    this.actionRng = new Rng(this.rng.nextUint32());
  }

  get unwrapped(): Env<unknown, unknown> {
    return this as unknown as Env<unknown, unknown>;
  }

  /** Build a fresh episode from `this.rng`. */
  protected abstract newEpisode(options?: Record<string, unknown>): ResetResult<Obs>;
  /** Apply one action to `this.state`. Set `episodeOver` via the returned flags. */
  protected abstract applyAction(action: Act): StepResult<Obs>;
  abstract sampleRandomAction(): Act;
  /** A new instance with the same configuration (fresh state). */
  protected abstract clone(): BaseEnv<S, Obs, Act>;

  resetSync(opts: ResetOptions = {}): ResetResult<Obs> {
    if (this.closed) throw new EnvClosedError('reset');
    const unknown = Object.keys(opts.options ?? {}).filter((k) => !this.resetOptionKeys.includes(k));
    if (unknown.length) {
      const takes = this.resetOptionKeys.length ? `it takes ${this.resetOptionKeys.map((k) => `'${k}'`).join(', ')}` : 'it takes none';
      throw new GemError('INVALID_OPTIONS', `Unknown reset option(s) ${unknown.map((k) => `'${k}'`).join(', ')} for '${this.spec?.id ?? this.constructor.name}'; ${takes}.`, {
        options: unknown,
      });
    }
    if (opts.seed !== undefined) {
      this.rng.seed(opts.seed);
      this.actionRng.seed(this.rng.nextUint32());
    }
    const result = this.newEpisode(opts.options);
    this.needsReset = false;
    return result;
  }

  stepSync(action: Act): StepResult<Obs> {
    if (this.closed) throw new EnvClosedError('step');
    if (this.needsReset) throw new ResetNeededError();
    const result = this.applyAction(action);
    if (result.terminated || result.truncated) this.needsReset = true;
    return result;
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

  async close(): Promise<void> {
    this.closed = true;
  }

  spawn(opts: SpawnOptions = {}): Env<Obs, Act> {
    const copy = this.clone();
    copy.spec = this.spec;
    copy.rng.setState(this.rng.getState());
    copy.actionRng.setState(this.actionRng.getState());
    if (opts.seed !== undefined) {
      copy.rng.seed(opts.seed);
      copy.actionRng.seed(copy.rng.nextUint32());
    }
    if (opts.sameState && !this.needsReset) {
      copy.state = structuredClone(this.state);
      copy.needsReset = false;
    }
    return copy;
  }

  /** GEM keeps constructor arguments as attributes (`env.max_turns`): options are read/write, applied from the next reset. */
  envAttributes(): AttributeTable {
    const self = this as unknown as { options?: Record<string, unknown> };
    return self.options && typeof self.options === 'object' ? optionAttributes(self as { options: Record<string, unknown> }, true) : {};
  }

  toString(): string {
    return `<${this.spec?.id ?? this.constructor.name}>`;
  }
}
