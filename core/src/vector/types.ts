/**
 * The vector contract shared by SyncVectorEnv, AsyncVectorEnv, EnvPool and the server. Batches carry
 * the env indices they concern, so any subset can be stepped (GEM's dict actions, EnvPool's send/recv).
 */
import type { Info } from '../core/env.ts';
import type { EnvRegistry } from '../registry/registry.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';

/**
 * GEM's default is same_step: the env resets inside the step that ended it; that row carries the
 * finished step's reward and flags, the NEW episode's first observation, and the reset info with the
 * terminal observation and info under `final_obs` / `final_info` (Gymnasium 1.x's names).
 * next_step: the row of the ending step is the terminal one; the env's next step ignores its action,
 * resets, and returns the first observation with reward 0 and both flags false (EnvPool, Gymnasium).
 * disabled: an ended env must be reset by the caller with `reset({indices})`; stepping it first is
 * a RESET_NEEDED error.
 */
export type AutoresetMode = 'same_step' | 'next_step' | 'disabled';
export const AUTORESET_MODES: readonly AutoresetMode[] = ['same_step', 'next_step', 'disabled'];

/** How a vector env runs its sub-envs (see makeVec). */
export type VectorMode = 'sync' | 'async' | 'pool';

export interface VectorResetOptions {
  /** One seed (env i gets seed + i) or one per reset env. */
  seed?: number | number[];
  /** Per-env reset options: one object for all, or one per reset env. */
  options?: Record<string, unknown> | Record<string, unknown>[];
  /** Reset only these envs (default: all). */
  indices?: number[];
}

export interface VectorResetResult {
  indices: number[];
  observations: string[];
  infos: Info[];
}

/** Rows in the order of `indices`; infos are one plain object per row (GEM's list of dicts). */
export interface VectorStepResult {
  /** Which envs these rows belong to, in row order. */
  indices: number[];
  observations: string[];
  rewards: Float64Array;
  terminated: boolean[];
  truncated: boolean[];
  infos: Info[];
}

export interface VectorEnv {
  readonly numEnvs: number;
  readonly autoresetMode: AutoresetMode;
  /** The registry ids of the sub-envs, one per index. */
  readonly envIds: string[];
  readonly closed: boolean;
  reset(opts?: VectorResetOptions): Promise<VectorResetResult>;
  /**
   * Step all envs (actions.length === numEnvs) or the given subset (actions[k] goes to
   * indices[k]; GEM's dict actions). Rows come back in the order of `indices`.
   */
  step(actions: string[], indices?: number[]): Promise<VectorStepResult>;
  /** Idempotent; closes every sub-env and any worker threads. */
  close(): Promise<void>;
  /** The wrapper stack of env i, e.g. `<episode_tracking<concat<game:GuessTheNumber-v0-easy>>>`. */
  describe(index?: number): string;
  /** A random action for each of the given envs (default: all), from each env's own action stream. */
  sampleRandomActions?(indices?: number[]): string[];
}

export interface RecvOptions {
  /**
   * Wait until at least this many envs have finished (default: every env sent and not yet
   * received). More rows come back if more are ready, up to `maxBatch`.
   */
  minBatch?: number;
  /** At most this many rows per recv (default: all ready). */
  maxBatch?: number;
  /** Give up waiting after this long and return whatever has finished, possibly no rows. */
  timeoutMs?: number;
}

/** EnvPool's asynchronous shape: send actions to some envs, receive whichever finish first. */
export interface EnvPoolLike extends VectorEnv {
  /** Starts the steps and returns at once. An env stays in flight until a recv returns its row. */
  send(actions: string[], indices: number[]): void;
  recv(opts?: RecvOptions): Promise<VectorStepResult>;
  /** Envs sent and not yet received. */
  readonly inFlight: number;
}

export interface MakeVecOptions {
  /** Number of copies when a single id is given (default: vecOptions.length, else 1). */
  numEnvs?: number;
  /** GEM wrapper names, innermost first, e.g. ['concat', 'episode_tracking']. */
  wrappers?: string[];
  /** Per-env make options (GEM's vec_kwargs), merged under `options`. */
  vecOptions?: Record<string, unknown>[];
  /** Options for every env's make. */
  options?: Record<string, unknown>;
  /** Env i is built with seed + i (GEM's rule; default 0 as in GEM). */
  seed?: number;
  /** GEM's async_mode: the same as mode 'async'. */
  asyncMode?: boolean;
  /** 'sync' (default): envs step one after another; 'async': concurrently; 'pool': an EnvPool. */
  mode?: VectorMode;
  autoresetMode?: AutoresetMode;
  /** One snake_case option bag for the wrapper stack (max_history_length, chat_template, …). */
  wrapperOptions?: Record<string, unknown>;
  /**
   * Worker threads for envs registered as cpuBound (default: cores − 1, at least 1, at most the
   * number of such envs). 0 runs them in the event loop like any other env.
   */
  workers?: number;
  /** Where env ids are resolved (a server passes the client session's registry; default: the process's). */
  registry?: EnvRegistry;
  /** Where wrapper names are resolved (a server passes the client session's catalogue; default: the process's). */
  wrapperCatalog?: WrapperCatalog;
}
