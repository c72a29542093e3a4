/**
 * The library edge: the process's env registry, with the process's dataset registry (tables a
 * program registers with `registerDataset`), and the module-level `make`, `register`, … on it.
 * envs/index.ts fills it with the built-in envs once. It lives here, above registry/ and data/, so
 * the registry itself holds no process-wide state and binds data only through what it is given.
 */
import type { Env } from '../core/env.ts';
import type { EnvRegistration } from '../core/spec.ts';
import { defaultDatasets } from '../data/datasetRegistry.ts';
import { EnvRegistry, type ResolvedOptions } from '../registry/registry.ts';

/** The process's catalog: built-in envs and what in-process TypeScript code registers. */
export const defaultRegistry = new EnvRegistry({ datasets: defaultDatasets, label: 'built-in catalog' });

export function register<O extends Record<string, unknown>>(reg: EnvRegistration<O>): void {
  defaultRegistry.register(reg);
}

/** Removes an id (for tests). */
export function unregister(id: string): boolean {
  return defaultRegistry.unregister(id);
}

export function isRegistered(id: string): boolean {
  return defaultRegistry.has(id);
}

export function getRegistration(id: string): EnvRegistration<any> {
  return defaultRegistry.get(id);
}

/** Registered ids in registration order; `filter` keeps ids containing it (case-insensitive). */
export function listEnvs(filter?: string): string[] {
  return defaultRegistry.list(filter);
}

export function resolveOptions(id: string, options: Record<string, unknown> = {}): ResolvedOptions {
  return defaultRegistry.resolveOptions(id, options);
}

/** Build an env by id from the default registry. */
export function make<Obs = string, Act = string>(id: string, options: Record<string, unknown> = {}): Env<Obs, Act> {
  return defaultRegistry.make<Obs, Act>(id, options);
}
