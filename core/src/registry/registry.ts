/**
 * The env registry: an object mapping GEM ids to factories with zod option schemas. `make` merges the
 * registered defaults with the caller's options (caller wins, as in GEM), validates them, and builds
 * the env. `seed` is accepted by every env: it seeds the env's PRNG at construction.
 *
 * Registries layer: `overlay()` gives a registry that reads through to its base and writes only to
 * itself. The server gives each client session an overlay over the built-in catalog, so an id a
 * client registers from Python is seen by that client alone and goes away with it; the catalog is
 * never written by the server. A registry may carry the datasets its envs see (a session's pushed
 * tables): `resolveOptions` binds a dataset option to those rows in the calling thread, so worker
 * threads, which never see the registry, get the data itself (data/datasetBinding.ts).
 *
 * The process's own registry and the module-level `make`, `register`, … on it are the library edge,
 * in envs/defaultRegistry.ts. Servers and the CLI use their own registries (envs/builtinCatalog.ts).
 */
import { GemError, UnknownEnvError } from '../core/errors.ts';
import type { Env } from '../core/env.ts';
import { enforceOrder } from '../core/orderEnforcing.ts';
import type { EnvRegistration, EnvSpec } from '../core/spec.ts';
import type { DataDirs } from '../data/dataDirs.ts';
import type { DatasetLookup } from '../data/datasetRegistry.ts';
import { closestIds, parseEnvId } from './envId.ts';
import { normaliseKeys, validateOptions } from './options.ts';

export interface ResolvedOptions {
  reg: EnvRegistration<any>;
  spec: EnvSpec;
  seed?: number;
}

export interface EnvRegistryOptions {
  /** Read through to this registry for ids not registered here. */
  base?: EnvRegistry;
  /** Datasets the envs made through this registry see (default: the base's, else none). */
  datasets?: DatasetLookup;
  /** The only directories whose files a dataset option may name (default: the base's; none set: any file, as for the library). */
  dataDirs?: DataDirs;
  /** A read-only registry refuses `register` and `unregister` (a view of a catalog). */
  readOnly?: boolean;
  /** For error messages: 'built-in catalog', 'client session', … */
  label?: string;
}

export class EnvRegistry {
  private readonly own = new Map<string, EnvRegistration<any>>();
  readonly base?: EnvRegistry;
  readonly datasets?: DatasetLookup;
  readonly dataDirs?: DataDirs;
  readonly readOnly: boolean;
  readonly label: string;

  constructor(opts: EnvRegistryOptions = {}) {
    this.base = opts.base;
    this.datasets = opts.datasets ?? opts.base?.datasets;
    this.dataDirs = opts.dataDirs ?? opts.base?.dataDirs;
    this.readOnly = opts.readOnly ?? false;
    this.label = opts.label ?? 'registry';
  }

  /** A registry that reads through to this one and keeps its own registrations to itself. */
  overlay(opts: Omit<EnvRegistryOptions, 'base'> = {}): EnvRegistry {
    return new EnvRegistry({ ...opts, base: this });
  }

  /** A read-only view of this registry (same entries, refuses writes). */
  readonlyView(): EnvRegistry {
    return new EnvRegistry({ base: this, readOnly: true, label: this.label });
  }

  register<O extends Record<string, unknown>>(reg: EnvRegistration<O>): void {
    this.assertWritable();
    parseEnvId(reg.id);
    if (this.has(reg.id)) {
      throw new GemError('ALREADY_REGISTERED', `Environment '${reg.id}' is already registered.`, { id: reg.id });
    }
    this.own.set(reg.id, reg as EnvRegistration<any>);
  }

  /** Removes an id registered here (never one of the base's). */
  unregister(id: string): boolean {
    this.assertWritable();
    return this.own.delete(id);
  }

  /** Whether `id` is registered here, not in a base. */
  owns(id: string): boolean {
    return this.own.has(id);
  }

  has(id: string): boolean {
    return this.own.has(id) || (this.base?.has(id) ?? false);
  }

  find(id: string): EnvRegistration<any> | undefined {
    return this.own.get(id) ?? this.base?.find(id);
  }

  get(id: string): EnvRegistration<any> {
    const reg = this.find(id);
    if (!reg) {
      parseEnvId(id);
      throw new UnknownEnvError(id, closestIds(id, this.ids()));
    }
    return reg;
  }

  /** Every visible id: the base's first (in registration order), then this registry's own. */
  ids(): string[] {
    const base = this.base?.ids() ?? [];
    const own = [...this.own.keys()].filter((id) => !this.base?.has(id));
    return base.length ? [...base, ...own] : own;
  }

  /** Visible ids; `filter` keeps ids containing it (case-insensitive). */
  list(filter?: string): string[] {
    const ids = this.ids();
    if (!filter) return ids;
    const f = filter.toLowerCase();
    return ids.filter((id) => id.toLowerCase().includes(f));
  }

  /** The validated spec of `id` with `options`, without binding any data (for `spec` replies and docs). */
  spec(id: string, options: Record<string, unknown> = {}): EnvSpec {
    return this.validate(id, options).spec;
  }

  /**
   * Validates `options` for `id`, then lets the id's binding (if it has one) turn options that name
   * data into the data this registry can see (a task env's dataset: data/datasetBinding.ts).
   */
  resolveOptions(id: string, options: Record<string, unknown> = {}): ResolvedOptions {
    const { binding } = this.get(id);
    const { bound, rest } = binding?.take(options) ?? { rest: options };
    const resolved = this.validate(id, rest);
    const data = bound ?? binding?.bind(id, resolved.spec.options, this, resolved.reg.cpuBound ?? false);
    if (data) Object.assign(resolved.spec.options, data);
    return resolved;
  }

  /** Build an env by id. Unknown ids name the closest ones; bad options name the option and type. */
  make<Obs = string, Act = string>(id: string, options: Record<string, unknown> = {}): Env<Obs, Act> {
    const resolved = this.resolveOptions(id, options);
    return createEnv<Obs, Act>(resolved, resolved.seed);
  }

  private validate(id: string, options: Record<string, unknown>): ResolvedOptions {
    const reg = this.get(id);
    const { seed, ...rest } = normaliseKeys(options);
    if (seed !== undefined && seed !== null && (typeof seed !== 'number' || !Number.isFinite(seed))) {
      throw new GemError('INVALID_OPTIONS', `Invalid options for '${id}': option 'seed': expected number`, { id });
    }
    const merged = { ...(reg.defaults ?? {}), ...rest };
    const validated = validateOptions(id, reg.schema, merged, ['seed']) as Record<string, unknown>;
    const spec: EnvSpec = {
      id,
      family: parseEnvId(id).family,
      description: reg.description,
      options: validated,
      cpuBound: reg.cpuBound,
    };
    return { reg, spec, seed: (seed as number | undefined) ?? undefined };
  }

  private assertWritable(): void {
    if (this.readOnly) throw new GemError('NOT_SUPPORTED', `The ${this.label} is read-only; register into an overlay of it.`);
  }
}

/**
 * The env of resolved options, under the lifecycle layer (core/orderEnforcing.ts), as Gymnasium's
 * make applies OrderEnforcing: every env made by id enforces reset-before-step and close the same way.
 */
export function createEnv<Obs = string, Act = string>({ reg, spec }: Pick<ResolvedOptions, 'reg' | 'spec'>, seed?: number): Env<Obs, Act> {
  const env = reg.create(spec.options, spec, seed);
  if (!env.spec) (env as { spec?: EnvSpec }).spec = spec;
  return enforceOrder(env as Env<Obs, Act>);
}
