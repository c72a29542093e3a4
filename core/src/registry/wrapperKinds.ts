/**
 * What a named wrapper is (GEM's WRAPPER_FACTORY entries, made extensible): a kind that fixes its
 * place in a stack, a zod schema for the options it reads, and a builder.
 */
import type { z } from 'zod';
import type { Env } from '../core/env.ts';

/**
 * Where a wrapper sits, innermost first: a step limit on the bare env, then tool wrappers (tool
 * turns do not step the env), then the observation wrapper (it must see tool observations), then
 * episode tracking (it must see every reward, so it is outermost). GEM's factory relies on the same
 * order without checking it.
 */
export const WRAPPER_KINDS = ['limit', 'tool', 'observation', 'tracking'] as const;
export type WrapperKind = (typeof WRAPPER_KINDS)[number];

/** Kinds of which a stack may hold at most one wrapper (tool wrappers may stack). */
export const SINGLE_WRAPPER_KINDS: ReadonlySet<WrapperKind> = new Set(['limit', 'observation', 'tracking']);

export interface WrapperDefinition<O extends Record<string, unknown> = Record<string, unknown>> {
  /** GEM's name, e.g. `concat_chat`. */
  name: string;
  kind: WrapperKind;
  description: string;
  /**
   * Strict zod object schema of the options this wrapper reads from the shared option bag (snake_case
   * keys). Omit for wrappers without options.
   */
  schema?: z.ZodType<O>;
  build(env: Env<any, any>, options: O): Env<any, any>;
}
