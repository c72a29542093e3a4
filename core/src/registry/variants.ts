/** Registers one env class under several ids, each a named preset of its options (GEM's variants). */
import type { z } from 'zod';
import type { Env } from '../core/env.ts';
import type { EnvSpec } from '../core/spec.ts';
import type { EnvRegistry } from './registry.ts';

/** Registers the variants into `registry` and returns their ids. */
export function registerVariants<O extends Record<string, unknown>>(registry: EnvRegistry, args: {
  /** Id stem, e.g. `game:GuessTheNumber-v0`; each variant key is appended as `-<key>` ('' = the stem). */
  stem: string;
  description: string;
  schema: z.ZodType<O>;
  create: (options: O, spec: EnvSpec, seed?: number) => Env<any, any>;
  variants: Record<string, Partial<O>>;
  cpuBound?: boolean;
}): string[] {
  const ids: string[] = [];
  for (const [variant, defaults] of Object.entries(args.variants)) {
    const id = variant ? `${args.stem}-${variant}` : args.stem;
    registry.register<O>({ id, description: args.description, schema: args.schema, defaults, create: args.create, cpuBound: args.cpuBound });
    ids.push(id);
  }
  return ids;
}
