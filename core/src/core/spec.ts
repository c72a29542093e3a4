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
  /** Binds options that name data held elsewhere (task envs: data/datasetBinding.ts's datasetBinding). */
  binding?: OptionBinding;
}

/** Where a registry resolves options: what it holds that a binding may read (its datasets, its data dirs). */
export interface BindingScope {
  readonly datasets?: unknown;
  readonly dataDirs?: unknown;
}

/**
 * How an env's options that name data (a registered table, a file, a hub id) become the data itself,
 * in the thread that resolves them, so that an env made in a worker thread, which never sees the
 * registry, still gets its data. The registry calls `take` before validation (to set aside what a
 * parent thread bound already) and `bind` after it; both return replacement option values.
 */
export interface OptionBinding {
  take(options: Record<string, unknown>): { bound?: Record<string, unknown>; rest: Record<string, unknown> };
  bind(id: string, options: Record<string, unknown>, scope: BindingScope, cpuBound: boolean): Record<string, unknown> | undefined;
}
