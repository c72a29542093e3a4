/**
 * Building a wrapper stack from GEM names (`['concat', 'episode_tracking']` or GEM's comma string
 * `'concat,episode_tracking'`), innermost first, with the order checked against a catalogue: a wrong
 * order is an INVALID_WRAPPER error that spells out the right one. Options are one snake_case bag
 * shared by the stack; each wrapper validates the keys it reads, and a key that no wrapper reads is
 * an error.
 */
import type { Env } from '../core/env.ts';
import type { EnvSpec } from '../core/spec.ts';
import { GemError } from '../core/errors.ts';
import { normaliseKeys, schemaKeys, validateOptions } from './options.ts';
import type { WrapperCatalog } from './wrapperCatalog.ts';
import { SINGLE_WRAPPER_KINDS, WRAPPER_KINDS, type WrapperDefinition } from './wrapperKinds.ts';

export type WrapperNames = string | readonly string[];
export type WrapperOptions = Record<string, unknown>;

/** GEM accepts `'a,b,c'`; we also accept a list. Blank entries are dropped. */
export function parseWrapperNames(names: WrapperNames | undefined): string[] {
  if (names === undefined) return [];
  const list = typeof names === 'string' ? names.split(',') : [...names];
  return list.map((n) => n.trim()).filter((n) => n.length > 0);
}

function orderHint(catalog: WrapperCatalog): string {
  return WRAPPER_KINDS.map((kind) => {
    const names = catalog.names().filter((n) => catalog.get(n).kind === kind);
    return `${kind} (${names.join(', ') || 'none defined'})`;
  }).join(' → ');
}

/**
 * Kinds GEM stacks in whatever order it is given (`episode_tracking,concat`, `concat,python_tool`):
 * such a stack is built as given, as GEM builds it. Our own `limit` kind must stay innermost.
 */
const GEM_ORDERED_KINDS: ReadonlySet<string> = new Set(['tool', 'observation', 'tracking']);

/** True when GEM kinds appear out of the canonical order (the stack is still built as given). */
export function isReordered(catalog: WrapperCatalog, names: readonly string[]): boolean {
  const ranks = names.map((n) => WRAPPER_KINDS.indexOf(catalog.get(n).kind));
  return ranks.some((r, i) => i > 0 && r < ranks[i - 1]);
}

/**
 * Throws INVALID_WRAPPER unless `names` are in `catalog` and in an order we build: innermost first,
 * `limit` innermost, one wrapper per single kind; GEM's kinds in any order (GEM_ORDERED_KINDS).
 */
export function checkWrapperOrder(catalog: WrapperCatalog, names: readonly string[]): WrapperDefinition[] {
  const defs = names.map((n) => catalog.get(n));
  const seen = new Set<string>();
  for (let i = 0; i < defs.length; i++) {
    const d = defs[i];
    if (seen.has(d.name)) {
      throw new GemError('INVALID_WRAPPER', `Wrapper '${d.name}' appears twice in [${names.join(', ')}].`, { names });
    }
    seen.add(d.name);
    const prev = defs[i - 1];
    if (!prev) continue;
    const [a, b] = [WRAPPER_KINDS.indexOf(prev.kind), WRAPPER_KINDS.indexOf(d.kind)];
    const clash = a === b && SINGLE_WRAPPER_KINDS.has(d.kind);
    const gemOrder = GEM_ORDERED_KINDS.has(prev.kind) && GEM_ORDERED_KINDS.has(d.kind);
    if ((b < a && !gemOrder) || clash) {
      const sorted = [...defs].sort((x, y) => WRAPPER_KINDS.indexOf(x.kind) - WRAPPER_KINDS.indexOf(y.kind));
      const why = clash
        ? `'${prev.name}' and '${d.name}' are both ${d.kind} wrappers; a stack takes one`
        : `'${d.name}' (${d.kind}) cannot wrap '${prev.name}' (${prev.kind})`;
      throw new GemError(
        'INVALID_WRAPPER',
        `Invalid wrapper order [${names.join(', ')}]: ${why}. Wrappers go innermost first: ${orderHint(catalog)}` +
          (clash ? '.' : `; e.g. [${sorted.map((x) => x.name).join(', ')}].`),
        { names, kinds: WRAPPER_KINDS },
      );
    }
  }
  return defs;
}

/** Wraps an env with a checked stack; `names` and `options` are what an EnvSpec records of it. */
export interface PreparedWrappers {
  <O, A>(env: Env<O, A>): Env<any, any>;
  /** Innermost first. */
  readonly names: string[];
  /** The options the stack read, validated (snake_case), enough to build the same stack again. */
  readonly options: WrapperOptions;
}

/**
 * Validate names, order and options once and return a function that wraps an env; vector envs call
 * it per sub-env without validating again.
 */
export function prepareWrappers(catalog: WrapperCatalog, names: WrapperNames | undefined, options: WrapperOptions = {}): PreparedWrappers {
  const list = parseWrapperNames(names);
  const defs = checkWrapperOrder(catalog, list);
  const bag = normaliseKeys(options);
  const readKeys = new Set(defs.flatMap((d) => (d.schema ? schemaKeys(d.schema) : [])));
  const unread = Object.keys(bag).filter((k) => !readKeys.has(k));
  if (unread.length) {
    throw new GemError(
      'INVALID_OPTIONS',
      `Wrapper option${unread.length > 1 ? 's' : ''} ${unread.map((k) => `'${k}'`).join(', ')} ` +
        `not read by any wrapper in [${list.join(', ')}]` +
        (readKeys.size ? `; they read: ${[...readKeys].join(', ')}` : '; they take no options'),
      { unread },
    );
  }
  const steps = defs.map((d) => {
    if (!d.schema) return { def: d, opts: {} };
    const own: Record<string, unknown> = {};
    for (const k of schemaKeys(d.schema)) if (k in bag) own[k] = bag[k];
    return { def: d, opts: validateOptions(`wrapper ${d.name}`, d.schema, own) as Record<string, unknown> };
  });
  const wrap = <O, A>(env: Env<O, A>): Env<any, any> => {
    let wrapped: Env<any, any> = env;
    for (const { def, opts } of steps) wrapped = def.build(wrapped, opts);
    return wrapped;
  };
  const resolved: WrapperOptions = {};
  for (const { opts } of steps) for (const [k, v] of Object.entries(opts)) if (v !== undefined) resolved[k] = v;
  return Object.assign(wrap, { names: list, options: resolved });
}

/**
 * The env an EnvSpec describes, made again: `make` with the spec's resolved options, then its
 * wrapper stack from `catalog` with the wrapper options it recorded.
 */
export function makeFromSpec(
  spec: EnvSpec,
  make: (id: string, options: Record<string, unknown>) => Env<any, any>,
  catalog: WrapperCatalog,
): Env<any, any> {
  if (typeof spec !== 'object' || spec === null || typeof spec.id !== 'string') {
    throw new GemError('INVALID_OPTIONS', 'makeFromSpec: give an EnvSpec (an object with an id, as env.spec returns)');
  }
  const env = make(spec.id, spec.options ?? {});
  return spec.wrappers?.length ? prepareWrappers(catalog, spec.wrappers, spec.wrapperOptions)(env) : env;
}
