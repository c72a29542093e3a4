/**
 * What stepping an episode that has already ended gives. GEM's envs keep answering such steps (and
 * even pay for them), so GEM users' loops do step past the end; gem-ts keeps those loops running
 * without playing the step: the row says the episode is over, `terminated` stays true, reward 0, and
 * the first such step of an env carries a warning (the Python client raises it as a UserWarning).
 * The strict policy refuses the step with RESET_NEEDED instead (make option `strict_reset: true`).
 *
 * The vector layer applies it (core/src/vector/vectorEnvBase.ts), which every server handle and so
 * every env family and wrapper stack goes through; an env stepped directly in TypeScript stays strict.
 */
import type { StepResult } from './env.ts';
import { GemError } from './errors.ts';

export type PastEndPolicy = 'answer' | 'raise';

/** The make option that selects the strict policy; read by makeVec, never passed to the env. */
export const STRICT_RESET_OPTION = 'strict_reset';

export const PAST_END_OBSERVATION = 'This episode is over; this action was not played. Call reset() to start a new episode.';

export function pastEndWarning(envIndex: number, envId: string): string {
  return (
    `env ${envIndex} ('${envId}') was stepped after its episode ended: gem-ts answers with reward 0 and ` +
    `terminated=True without playing the step (GEM would keep playing). Reset after terminated or truncated; ` +
    `make(..., ${STRICT_RESET_OPTION}=True) raises ResetNeededError instead. Shown once per env.`
  );
}

/** The row of a step taken after the episode ended; `warning` only on the env's first one. */
export function pastEndStep(warning?: string): StepResult {
  const info: Record<string, unknown> = { episode_over: true };
  if (warning !== undefined) info.past_end_warning = warning;
  return { observation: PAST_END_OBSERVATION, reward: 0, terminated: true, truncated: false, info };
}

/** Reads (and removes) the strict-reset make option; anything but a boolean is a clear error. */
export function takePastEndPolicy(options: Record<string, unknown>): PastEndPolicy | undefined {
  if (!(STRICT_RESET_OPTION in options)) return undefined;
  const v = options[STRICT_RESET_OPTION];
  delete options[STRICT_RESET_OPTION];
  if (typeof v !== 'boolean') {
    throw new GemError('INVALID_OPTIONS', `option '${STRICT_RESET_OPTION}' must be true or false, not ${JSON.stringify(v)}`);
  }
  return v ? 'raise' : 'answer';
}
