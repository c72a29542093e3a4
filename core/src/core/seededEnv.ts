/**
 * Base for envs whose whole episode state is plain data in `this.state` (cloneable by
 * structuredClone) and whose randomness comes only from `this.rng`: it owns the two seeded streams,
 * and spawn, close and printing follow from them. Synchronous games extend BaseEnv on top of it;
 * envs that wait on I/O (WikiGame's page backends) extend it directly and write async reset/step.
 * Call order (closed, reset before step) is enforced around every env by core/orderEnforcing.ts.
 */
import { Rng } from './rng.ts';
import type { Env, ResetOptions, ResetResult, SpawnOptions, StepResult } from './env.ts';
import type { EnvSpec } from './spec.ts';

export abstract class SeededEnv<S, Obs = string, Act = string> implements Env<Obs, Act> {
  spec?: EnvSpec;
  protected rng: Rng;
  /** Separate stream for sampleRandomAction, so sampling actions never changes the episode. */
  protected actionRng: Rng;
  /** The current episode; undefined before the first reset. */
  protected state!: S;

  constructor(seed?: number) {
    this.rng = new Rng(seed);
    this.actionRng = new Rng(this.rng.nextUint32());
  }

  get unwrapped(): Env<unknown, unknown> {
    return this as unknown as Env<unknown, unknown>;
  }

  abstract reset(opts?: ResetOptions): Promise<ResetResult<Obs>>;
  abstract step(action: Act): Promise<StepResult<Obs>>;
  abstract sampleRandomAction(): Act;
  /** A new instance with the same configuration (fresh state). */
  protected abstract clone(): SeededEnv<S, Obs, Act>;

  /** Restart both streams from `seed`: the episode is then a pure function of it. */
  protected reseed(seed: number | undefined): void {
    if (seed === undefined) return;
    this.rng.seed(seed);
    this.actionRng.seed(this.rng.nextUint32());
  }

  /**
   * A copy that continues this env's streams (or restarts them from `seed`); with `sameState`, a
   * deep copy of the current episode (the lifecycle layer asks for it only mid-episode).
   */
  spawn(opts: SpawnOptions = {}): Env<Obs, Act> {
    const copy = this.clone();
    copy.spec = this.spec;
    copy.rng.setState(this.rng.getState());
    copy.actionRng.setState(this.actionRng.getState());
    copy.reseed(opts.seed);
    if (opts.sameState && this.state !== undefined) copy.state = structuredClone(this.state);
    return copy;
  }

  async close(): Promise<void> {}

  toString(): string {
    return `<${this.spec?.id ?? this.constructor.name}>`;
  }
}
