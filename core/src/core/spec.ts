/**
 * What an env was made with: its id, the options after defaults and validation, and the wrapper stack
 * around it. Enough to document it and to make the same env again (`makeFromSpec`).
 */
import type { z } from 'zod';
import type { Env } from './env.ts';

export interface EnvSpec {
  /** Full id, e.g. `game:GuessTheNumber-v0-easy`. */
  id: string;
  /** Family prefix before the colon: game, math, code, qa, logic, rg, eval, … */
  family: string;
  description: string;
  /** Options after defaults and validation, snake_case as in GEM's kwargs. */
  options: Record<string, unknown>;
  /** CPU-heavy envs are stepped off the event loop by vector envs. */
  cpuBound?: boolean;
  /** Wrapper names applied by makeVec or the server, innermost first. */
  wrappers?: string[];
  /** The validated options of that wrapper stack (snake_case), so `makeFromSpec` builds it again. */
  wrapperOptions?: Record<string, unknown>;
}

export interface EnvRegistration<O extends Record<string, unknown> = Record<string, unknown>> {
  id: string;
  description: string;
  /** zod object schema of the options; unknown keys are rejected. */
  schema: z.ZodType<O>;
  /** Registered defaults (a variant's preset); call-site options override them. */
  defaults?: Partial<O>;
  create: (options: O, spec: EnvSpec, seed?: number) => Env<any, any>;
  cpuBound?: boolean;
  /**
   * `import.meta.url` of the module that registers this id, for ids registered outside
   * src/envs (tests, plugins): a worker thread imports it before making a cpuBound env.
   */
  moduleUrl?: string;
}
