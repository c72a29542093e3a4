/**
 * The library edge for wrappers, beside the registry's module-level make: in-process TypeScript code
 * (and makeVec or the evaluator when given no catalogue) uses one process-wide wrapper catalogue,
 * made from builtinCatalog on first use. Servers and the CLI pass their own catalogue instead.
 */
import type { Env } from '../core/env.ts';
import type { EnvSpec } from '../core/spec.ts';
import { make as registryMake } from './defaultRegistry.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';
import type { WrapperDefinition } from '../registry/wrapperKinds.ts';
import { makeFromSpec as makeFromSpecWith, type PreparedWrappers, type WrapperNames, type WrapperOptions } from '../registry/wrapperStack.ts';
import { builtinWrappers } from './builtinCatalog.ts';

let processWrappers: WrapperCatalog | undefined;

/** The process's wrapper catalogue (built on first use). */
export function defaultWrappers(): WrapperCatalog {
  return (processWrappers ??= builtinWrappers());
}

export function defineWrapper<O extends Record<string, unknown>>(def: WrapperDefinition<O>): void {
  defaultWrappers().define(def);
}

export function getWrapperDefinition(name: string): WrapperDefinition<any> {
  return defaultWrappers().get(name);
}

/** Defined wrapper names, in definition order. */
export function listWrappers(): string[] {
  return defaultWrappers().names();
}

export function isReordered(names: readonly string[]): boolean {
  return defaultWrappers().isReordered(names);
}

export function checkWrapperOrder(names: readonly string[]): WrapperDefinition[] {
  return defaultWrappers().checkOrder(names);
}

export function prepareWrappers(names: WrapperNames | undefined, options: WrapperOptions = {}): PreparedWrappers {
  return defaultWrappers().prepare(names, options);
}

/** Wrap `env` with the named wrappers, innermost first (GEM's make_vec `wrappers` argument). */
export function applyWrappers<O, A>(env: Env<O, A>, names: WrapperNames, options?: WrapperOptions): Env<any, any> {
  return defaultWrappers().apply(env, names, options);
}

/**
 * The env an EnvSpec describes, made again: `make` (the built-in registry's unless a session's is
 * given) with the spec's options, then its wrapper stack from `wrappers`.
 */
export function makeFromSpec(
  spec: EnvSpec,
  make: (id: string, options: Record<string, unknown>) => Env<any, any> = registryMake,
  wrappers: WrapperCatalog = defaultWrappers(),
): Env<any, any> {
  return makeFromSpecWith(spec, make, wrappers);
}
