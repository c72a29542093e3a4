/**
 * The wrapper catalogue: an object mapping GEM wrapper names to their definitions, layered like
 * EnvRegistry. `overlay()` gives a catalogue that reads through to its base and defines only into
 * itself, so a session can add wrappers without touching the built-in ones. Building a stack goes
 * through a catalogue (`prepare`, `apply`), so which names exist is always the caller's catalogue.
 */
import type { Env } from '../core/env.ts';
import { GemError } from '../core/errors.ts';
import { WRAPPER_KINDS, type WrapperDefinition } from './wrapperKinds.ts';
import { checkWrapperOrder, isReordered, prepareWrappers, type PreparedWrappers, type WrapperNames, type WrapperOptions } from './wrapperStack.ts';

export interface WrapperCatalogOptions {
  /** Read through to this catalogue for names not defined here. */
  base?: WrapperCatalog;
  /** A read-only catalogue refuses `define` (a view of the built-in one). */
  readOnly?: boolean;
  /** For error messages: 'built-in wrappers', 'client session', … */
  label?: string;
}

export class WrapperCatalog {
  private readonly own = new Map<string, WrapperDefinition<any>>();
  readonly base?: WrapperCatalog;
  readonly readOnly: boolean;
  readonly label: string;

  constructor(opts: WrapperCatalogOptions = {}) {
    this.base = opts.base;
    this.readOnly = opts.readOnly ?? false;
    this.label = opts.label ?? 'wrapper catalogue';
  }

  /** A catalogue that reads through to this one and keeps its own definitions to itself. */
  overlay(opts: Omit<WrapperCatalogOptions, 'base'> = {}): WrapperCatalog {
    return new WrapperCatalog({ ...opts, base: this });
  }

  /** A read-only view of this catalogue (same names, refuses definitions). */
  readonlyView(): WrapperCatalog {
    return new WrapperCatalog({ base: this, readOnly: true, label: this.label });
  }

  define<O extends Record<string, unknown>>(def: WrapperDefinition<O>): void {
    if (this.readOnly) throw new GemError('NOT_SUPPORTED', `The ${this.label} is read-only; define into an overlay of it.`);
    if (!/^[a-z][a-z0-9_]*$/.test(def.name)) {
      throw new GemError('INVALID_WRAPPER', `Wrapper names are snake_case, got '${def.name}'.`);
    }
    if (!WRAPPER_KINDS.includes(def.kind)) {
      throw new GemError('INVALID_WRAPPER', `Wrapper '${def.name}': kind must be one of ${WRAPPER_KINDS.join(', ')}.`);
    }
    if (this.has(def.name)) {
      throw new GemError('ALREADY_REGISTERED', `Wrapper '${def.name}' is already defined.`, { name: def.name });
    }
    this.own.set(def.name, def as WrapperDefinition<any>);
  }

  has(name: string): boolean {
    return this.own.has(name) || (this.base?.has(name) ?? false);
  }

  find(name: string): WrapperDefinition<any> | undefined {
    return this.own.get(name) ?? this.base?.find(name);
  }

  get(name: string): WrapperDefinition<any> {
    const def = this.find(name);
    if (!def) {
      const known = this.names();
      throw new GemError('INVALID_WRAPPER', `Unknown wrapper '${name}'. Known wrappers: ${known.join(', ')}.`, { name, known });
    }
    return def;
  }

  /** Visible names in definition order: the base's first, then this catalogue's own. */
  names(): string[] {
    const base = this.base?.names() ?? [];
    return [...base, ...[...this.own.keys()].filter((n) => !this.base?.has(n))];
  }

  /** The definitions of `names` in a stack order we build (see wrapperStack.ts), else INVALID_WRAPPER. */
  checkOrder(names: readonly string[]): WrapperDefinition[] {
    return checkWrapperOrder(this, names);
  }

  /** True when GEM kinds appear out of the canonical order (the stack is still built as given). */
  isReordered(names: readonly string[]): boolean {
    return isReordered(this, names);
  }

  /** Validate names, order and options once; the result wraps any number of envs. */
  prepare(names: WrapperNames | undefined, options: WrapperOptions = {}): PreparedWrappers {
    return prepareWrappers(this, names, options);
  }

  /** Wrap `env` with the named wrappers, innermost first (GEM's make_vec `wrappers` argument). */
  apply<O, A>(env: Env<O, A>, names: WrapperNames, options?: WrapperOptions): Env<any, any> {
    return prepareWrappers(this, names, options)(env);
  }
}
