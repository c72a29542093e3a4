/**
 * makeVec (GEM's make_vec): one env per id — a single id repeated `numEnvs` times, or a list for a
 * multi-task vector env. Env i is made with `{...vecOptions[i], seed: seed + i, ...options}` (GEM's
 * merge: the shared options win), wrapped with the named wrappers (innermost first), and run by a
 * SyncVectorEnv, AsyncVectorEnv or EnvPool. Envs registered as cpuBound live in worker threads.
 *
 * Envs with the same id and options share one validated spec, so 10,000 copies cost one zod parse
 * and one spec object.
 */
import type { Env } from '../core/env.ts';
import { takePastEndPolicy } from '../core/pastEnd.ts';
import { GemError } from '../core/errors.ts';
import { assertDatasetPresent } from '../data/datasetBinding.ts';
import { createEnv, type ResolvedOptions } from '../registry/registry.ts';
import { defaultRegistry } from '../envs/defaultRegistry.ts';
import { normaliseKeys } from '../registry/options.ts';
import { parseWrapperNames } from '../registry/wrapperStack.ts';
import { defaultWrappers } from '../envs/defaultWrappers.ts';
import { AsyncVectorEnv } from './asyncVectorEnv.ts';
import { EnvPool } from './envPool.ts';
import { SyncVectorEnv } from './syncVectorEnv.ts';
import type { MakeVecOptions, VectorEnv, VectorMode } from './types.ts';
import { WorkerPool, defaultWorkerCount } from './workerPool.ts';
import type { VectorEnvInit } from './vectorEnvBase.ts';

const MODES: readonly VectorMode[] = ['sync', 'async', 'pool'];

function fail(message: string): never {
  throw new GemError('INVALID_OPTIONS', `makeVec: ${message}`);
}

function envIdList(ids: string | string[], numEnvs: number | undefined): string[] {
  if (numEnvs !== undefined && (!Number.isInteger(numEnvs) || numEnvs < 1)) fail(`numEnvs must be a positive integer, got ${numEnvs}`);
  if (typeof ids === 'string') return new Array<string>(numEnvs ?? 1).fill(ids);
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string')) {
    fail('ids must be an env id or a non-empty list of env ids');
  }
  if (numEnvs !== undefined && numEnvs !== ids.length) fail(`numEnvs (${numEnvs}) differs from the ${ids.length} ids given`);
  return ids;
}

export function makeVec(ids: string | string[], opts: MakeVecOptions = {}): VectorEnv {
  const mode: VectorMode = opts.mode ?? (opts.asyncMode ? 'async' : 'sync');
  if (!MODES.includes(mode)) fail(`mode '${mode}' is not one of ${MODES.join(', ')}`);
  const init = buildEnvs(ids, opts);
  if (mode === 'pool') return new EnvPool(init);
  if (mode === 'async') return new AsyncVectorEnv(init);
  return new SyncVectorEnv(init);
}

/** makeVec in mode 'pool', typed as what it returns (the server serves every handle as one). */
export function makePool(ids: string | string[], opts: Omit<MakeVecOptions, 'mode' | 'asyncMode'> = {}): EnvPool {
  return new EnvPool(buildEnvs(ids, opts));
}

/** The sub-envs, wrapped, and what a vector env of any mode is built from. */
function buildEnvs(ids: string | string[], opts: MakeVecOptions): VectorEnvInit {
  // A single id with per-env options makes one env per options object.
  const envIds = envIdList(ids, opts.numEnvs ?? (typeof ids === 'string' ? opts.vecOptions?.length : undefined));
  const n = envIds.length;
  if (opts.vecOptions !== undefined && (!Array.isArray(opts.vecOptions) || opts.vecOptions.length !== n)) {
    fail(`vecOptions must hold one options object per env (${n})`);
  }
  const seed = opts.seed ?? 0;
  if (typeof seed !== 'number' || !Number.isFinite(seed)) fail(`seed must be a finite number, got ${seed}`);
  const wrapperNames = parseWrapperNames(opts.wrappers);
  const wrap = (opts.wrapperCatalog ?? defaultWrappers()).prepare(wrapperNames, opts.wrapperOptions);
  const shared = normaliseKeys(opts.options ?? {});
  const pastEnd = takePastEndPolicy(shared); // a vector-layer option, not the env's

  const registry = opts.registry ?? defaultRegistry;
  const specs = new Map<string, ResolvedOptions>();
  const plans = envIds.map((id, i) => {
    const own = normaliseKeys(opts.vecOptions?.[i] ?? {});
    const merged = { seed: seed + i, ...own, ...shared };
    const { seed: envSeed, ...rest } = merged;
    if (envSeed !== undefined && (typeof envSeed !== 'number' || !Number.isFinite(envSeed))) {
      fail(`env ${i}: seed must be a finite number, got ${String(envSeed)}`);
    }
    // Envs with the same id and options share one validated spec.
    const key = `${id}\u0000${JSON.stringify(rest)}`;
    let resolved = specs.get(key);
    if (!resolved) {
      resolved = registry.resolveOptions(id, rest);
      if (wrapperNames.length) {
        resolved.spec.wrappers = wrapperNames;
        if (Object.keys(wrap.options).length) resolved.spec.wrapperOptions = wrap.options;
      }
      specs.set(key, resolved);
    }
    return { id, resolved, seed: envSeed as number | undefined };
  });

  const cpuBound = plans.filter((p) => p.resolved.spec.cpuBound).length;
  const workerCount = opts.workers ?? defaultWorkerCount(cpuBound);
  if (!Number.isInteger(workerCount) || workerCount < 0) fail(`workers must be a non-negative integer, got ${opts.workers}`);
  const pool = cpuBound > 0 && workerCount > 0 ? new WorkerPool({ size: Math.min(workerCount, cpuBound) }) : undefined;

  const envs: Env<any, any>[] = [];
  try {
    for (const { resolved, seed: s } of plans) {
      const { reg, spec } = resolved;
      let env: Env<any, any>;
      if (pool && spec.cpuBound) {
        assertDatasetPresent(spec.id, spec.options); // the worker would only tell at the first reset
        env = pool.createEnv(spec, s, reg.moduleUrl);
      } else {
        env = createEnv(resolved, s);
      }
      envs.push(wrap(env));
    }
  } catch (e) {
    for (const env of envs) void env.close();
    void pool?.close();
    throw e;
  }

  return { envs, envIds, autoresetMode: opts.autoresetMode, pastEnd, resources: pool ? [pool] : [] };
}
