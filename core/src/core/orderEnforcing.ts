/**
 * The env lifecycle, written once (Gymnasium's OrderEnforcing, applied the same way: by the
 * registry's `make`). A closed env refuses reset and step with ENV_CLOSED; a step before the first
 * reset, or after a step that ended the episode, is RESET_NEEDED; close may be called any number of
 * times. Env classes therefore hold only their episode logic.
 *
 * The layer is transparent: it prints as the env it wraps, keeps the env's sync twins when it has
 * them (the vector fast path), and `spawn` gives a copy under its own layer, mid-episode only when
 * the parent is. A step past the end through a vector env never reaches it: the vector layer answers
 * that step itself (core/pastEnd.ts).
 */
import type { Env, ResetOptions, ResetResult, SpawnOptions, StepResult } from './env.ts';
import { EnvClosedError, ResetNeededError } from './errors.ts';
import { Wrapper } from './wrapper.ts';

/**
 * An env whose every step ends its episode (single-turn tasks) says so: the episode is then over as
 * soon as the step starts, so a second step is RESET_NEEDED even while the first is being graded or
 * when grading failed.
 */
export interface EndsOnEveryStep {
  readonly stepEndsEpisode: true;
}

function endsOnEveryStep(env: unknown): boolean {
  return (env as Partial<EndsOnEveryStep>).stepEndsEpisode === true;
}

export class OrderEnforcing<Obs = string, Act = string> extends Wrapper<Obs, Act, Obs, Act> {
  readonly wrapperName = 'order_enforcing';
  private inEpisode: boolean;
  private closed = false;
  private readonly oneStep: boolean;

  /** `inEpisode`: the wrapped env is already mid-episode (a spawn with sameState). */
  constructor(env: Env<Obs, Act>, inEpisode = false) {
    super(env);
    this.inEpisode = inEpisode;
    this.oneStep = endsOnEveryStep(env);
    // Hide the prototype's twins behind undefined own properties when the env has none.
    if (!env.resetSync || !env.stepSync) {
      Object.defineProperties(this, { resetSync: { value: undefined }, stepSync: { value: undefined } });
    }
  }

  private checkReset(): void {
    if (this.closed) throw new EnvClosedError('reset');
  }

  private checkStep(): void {
    if (this.closed) throw new EnvClosedError('step');
    if (!this.inEpisode) throw new ResetNeededError();
    if (this.oneStep) this.inEpisode = false;
  }

  private afterStep<R extends StepResult<Obs>>(result: R): R {
    if (result.terminated || result.truncated) this.inEpisode = false;
    return result;
  }

  reset(opts?: ResetOptions): Promise<ResetResult<Obs>> {
    try {
      this.checkReset();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.env.reset(opts).then((r) => {
      this.inEpisode = true;
      return r;
    });
  }

  step(action: Act): Promise<StepResult<Obs>> {
    try {
      this.checkStep();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.env.step(action).then((r) => this.afterStep(r));
  }

  resetSync?(opts?: ResetOptions): ResetResult<Obs> {
    this.checkReset();
    const r = this.env.resetSync!(opts);
    this.inEpisode = true;
    return r;
  }

  stepSync?(action: Act): StepResult<Obs> {
    this.checkStep();
    return this.afterStep(this.env.stepSync!(action));
  }

  close(): Promise<void> {
    this.closed = true;
    return this.env.close();
  }

  spawn(opts: SpawnOptions = {}): Env<Obs, Act> {
    const sameState = (opts.sameState ?? false) && this.inEpisode;
    return new OrderEnforcing(this.env.spawn({ ...opts, sameState }), sameState);
  }

  toString(): string {
    return this.env.toString();
  }
}

/** `env` under the lifecycle layer (once: an env that already has it is returned as it is). */
export function enforceOrder<Obs, Act>(env: Env<Obs, Act>): Env<Obs, Act> {
  return env instanceof OrderEnforcing ? env : new OrderEnforcing(env);
}
