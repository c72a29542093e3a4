/**
 * Env attributes, the Gymnasium way (`env.get_attr` / `env.set_attr`): an env declares which of its
 * state fields a client may read and which it may write, each with a zod type. GEM users poke env
 * state directly (`env.answer = gt`, `env.max_turns`, `env.dataset`); over the wire that becomes the
 * `get_attr`/`set_attr` ops, resolved here.
 *
 * Resolution walks the stack from the outermost wrapper inwards; the first layer that declares the
 * name serves it. A layer that lives elsewhere (a worker thread, the client's Python) forwards the
 * access there. A name nobody declares is UNKNOWN_ATTRIBUTE naming the declared ones; a write to a
 * read-only attribute is UNKNOWN_ATTRIBUTE too (Python raises AttributeError for both), and a value
 * of the wrong type is INVALID_ATTRIBUTE. A write is applied or refused, never dropped.
 */
import { z } from 'zod';
import { GemError } from './errors.ts';

export interface EnvAttribute {
  /** The value's type; a write is parsed with it before `set` sees it. */
  schema: z.ZodType;
  get(): unknown;
  /** Absent: read-only. */
  set?(value: unknown): void;
}

export type AttributeTable = Record<string, EnvAttribute>;

/** An env or wrapper that declares attributes of its own. */
export interface DeclaresAttributes {
  envAttributes(): AttributeTable;
}

/** A layer whose env lives elsewhere: attribute access is sent there. */
export interface ForwardsAttributes {
  forwardGetAttr(name: string): Promise<unknown>;
  forwardSetAttr(name: string, value: unknown): Promise<void>;
}

function declares(layer: unknown): layer is DeclaresAttributes {
  return typeof (layer as Partial<DeclaresAttributes>)?.envAttributes === 'function';
}

function forwards(layer: unknown): layer is ForwardsAttributes {
  return typeof (layer as Partial<ForwardsAttributes>)?.forwardGetAttr === 'function';
}

interface Resolved {
  tables: AttributeTable[];
  forwarder?: ForwardsAttributes;
  label: string;
}

/** Every layer's table, outermost first, down to the env (or to the layer that forwards). */
function resolve(env: unknown): Resolved {
  const tables: AttributeTable[] = [];
  let layer: unknown = env;
  const label = String(env);
  for (let depth = 0; layer && depth < 64; depth++) {
    if (declares(layer)) tables.push(layer.envAttributes());
    if (forwards(layer)) return { tables, forwarder: layer, label };
    const inner = (layer as { env?: unknown }).env;
    if (inner === undefined || inner === layer) break;
    layer = inner;
  }
  return { tables, label };
}

function find(r: Resolved, name: string): EnvAttribute | undefined {
  for (const t of r.tables) if (Object.hasOwn(t, name)) return t[name];
  return undefined;
}

/** `{readable, writable}` names the env declares (forwarded layers excluded: their reply names theirs). */
export function listEnvAttrs(env: unknown): { readable: string[]; writable: string[] } {
  const r = resolve(env);
  const seen = new Map<string, EnvAttribute>();
  for (const t of r.tables) for (const [k, a] of Object.entries(t)) if (!seen.has(k)) seen.set(k, a);
  const readable = [...seen.keys()].sort();
  return { readable, writable: readable.filter((k) => seen.get(k)!.set) };
}

function unknownAttribute(env: unknown, r: Resolved, name: string, why: string): GemError {
  const { readable, writable } = listEnvAttrs(env);
  const names = readable.map((k) => (writable.includes(k) ? `${k} (read/write)` : `${k} (read-only)`));
  return new GemError('UNKNOWN_ATTRIBUTE', `${r.label} ${why} '${name}'; it declares: ${names.join(', ') || 'none'}.`, { name, readable, writable });
}

export async function getEnvAttr(env: unknown, name: string): Promise<unknown> {
  const r = resolve(env);
  const attr = find(r, name);
  if (attr) return attr.get();
  if (r.forwarder) return r.forwarder.forwardGetAttr(name);
  throw unknownAttribute(env, r, name, 'has no attribute');
}

export async function setEnvAttr(env: unknown, name: string, value: unknown): Promise<void> {
  const r = resolve(env);
  const attr = find(r, name);
  if (!attr) {
    if (r.forwarder) return r.forwarder.forwardSetAttr(name, value);
    throw unknownAttribute(env, r, name, 'has no attribute');
  }
  if (!attr.set) throw unknownAttribute(env, r, name, 'cannot set the read-only attribute');
  const parsed = attr.schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => i.message).join('; ');
    throw new GemError('INVALID_ATTRIBUTE', `${r.label}: invalid value for attribute '${name}': ${problems}.`, { name, problems });
  }
  attr.set(parsed.data);
}

/** The zod type of an option value as it is now (numbers keep integrality). */
function schemaOfValue(v: unknown): z.ZodType {
  if (typeof v === 'number') return Number.isInteger(v) ? z.number().int() : z.number();
  if (typeof v === 'boolean') return z.boolean();
  if (typeof v === 'string') return z.string();
  if (Array.isArray(v)) return z.array(z.unknown());
  return z.unknown();
}

function camel(snake: string): string {
  return snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * An env's constructor options (GEM's constructor arguments, which GEM keeps as attributes of the
 * same name) as attributes. `writable` options are replaced on this env alone (the resolved options
 * object is shared between envs of one spec) and apply from the next reset, which is when every game
 * reads them; one the current episode keeps in its state (`max_turns` → `state.maxTurns`) changes
 * there too, as in GEM, whose games check `self.max_turns` on each step.
 */
export function optionAttributes(env: { options: Record<string, unknown> }, writable: boolean | readonly string[]): AttributeTable {
  const table: AttributeTable = {};
  for (const [key, current] of Object.entries(env.options)) {
    const canWrite = writable === true || (Array.isArray(writable) && writable.includes(key));
    table[key] = {
      schema: schemaOfValue(current),
      get: () => env.options[key],
      set: canWrite
        ? (value) => {
            (env as { options: Record<string, unknown> }).options = { ...env.options, [key]: value };
            const state = (env as unknown as { state?: Record<string, unknown> }).state;
            const twin = camel(key);
            if (state && typeof state === 'object' && twin in state && typeof state[twin] === typeof value) state[twin] = value;
          }
        : undefined,
    };
  }
  return table;
}
