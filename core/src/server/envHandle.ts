/**
 * A handle: one served pool (an EnvPool) made by one client, under the id the client names it by. The pool does the
 * work — its in-order calls order concurrent requests per env, check indices once and slice huge
 * batches — so a handle only adds what the wire reports about it.
 */
import type { EnvSpec } from '../core/spec.ts';
import type { AutoresetMode } from '../vector/types.ts';
import type { ServedPool } from './servedPool.ts';

export interface HandleInfo {
  handle: number;
  num_envs: number;
  env_ids: string[];
  autoreset_mode: AutoresetMode;
  wrappers: string[];
  /** Each sub-env's wrapper stack as text, e.g. `<EpisodeTracking<Concat<game:…>>>`. */
  repr: string[];
}

/** Data a handle's envs make the server hold, counted against the dataset quotas. */
export interface HeldBytes {
  /** Rows the client sent inline in make's options (their msgpack size). */
  inline: number;
  /**
   * Server-side files its envs read: real path → size on disk. The data layer keeps one copy of a
   * file's rows for every env that reads it, so a path counts once per session and once in the total.
   */
  files: ReadonlyMap<string, number>;
}

export class EnvHandle {
  readonly info: HandleInfo;

  constructor(
    readonly id: number,
    readonly pool: ServedPool,
    wrappers: string[],
    readonly held: HeldBytes = { inline: 0, files: new Map() },
    /** Per env, 1 where a wrapper keeps client-grown state (metered); undefined when none does. */
    readonly keepsState?: Uint8Array,
  ) {
    this.info = {
      handle: id,
      num_envs: pool.numEnvs,
      env_ids: pool.envIds,
      autoreset_mode: pool.autoresetMode,
      wrappers,
      repr: Array.from({ length: pool.numEnvs }, (_, i) => pool.describe(i)),
    };
  }

  get numEnvs(): number {
    return this.pool.numEnvs;
  }

  /**
   * The specs the sub-envs were made with (resolved options, wrapper stack), one per distinct spec:
   * envs of one id and options share one spec object.
   */
  specs(): EnvSpec[] {
    const seen = new Set<EnvSpec>();
    for (let i = 0; i < this.pool.numEnvs; i++) {
      const spec = this.pool.envAt(i).spec;
      if (spec) seen.add(spec);
    }
    return [...seen];
  }

  /** Closes after the requests already queued on this handle have run. */
  close(): Promise<void> {
    return this.pool.closeInOrder();
  }
}
