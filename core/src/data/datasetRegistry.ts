/**
 * Named tables: pushed from Python (`gem_ts.register_dataset(name, table_or_hf_dataset)`, sent as
 * Arrow and decoded to rows by the server) or registered from TypeScript. Task envs find their data
 * here by name before they look at files, so a trainer on a machine with the Hugging Face hub can
 * load a dataset there and hand it to a server that has no hub access.
 *
 * A DatasetRegistry is an object, and registries layer like env registries: a client session's
 * registry holds what that client pushed and reads through to the server-wide shared one. The
 * rows of one table (its `content`) may be shared by several names and registries — the server keeps
 * one copy of identical pushed bytes. `defaultDatasets` is the process's own registry, used by
 * in-process TypeScript code (`registerDataset`), the library edge.
 *
 * Naming: a split of a hub dataset is registered as `<hub name>:<split>` (e.g. `axon-rl/math-eval:amc`);
 * a bare `<hub name>` stands for a dataset with a single split. An env id (`math:Math12K`) works too.
 */
import { GemError } from '../core/errors.ts';

export type DatasetRow = Record<string, unknown>;

/** The rows of one table, shared by every name and registry that holds the same data. */
export interface DatasetContent {
  /** Unique per content: a hash of the pushed bytes, or a process-unique id for rows registered in TypeScript. */
  readonly key: string;
  readonly rows: readonly DatasetRow[];
  /** Column names, from the first row (pushed tables are rectangular). */
  readonly columns: string[];
  /** Size of the data as it arrived (Arrow IPC bytes for pushed tables; 0 when unknown). */
  readonly bytes: number;
}

export interface RegisteredDataset {
  name: string;
  content: DatasetContent;
  rows: readonly DatasetRow[];
  columns: string[];
}

/** What envs need of a registry: a table by name. */
export interface DatasetLookup {
  getDataset(name: string): RegisteredDataset | undefined;
}

function isPlainRow(value: unknown): value is DatasetRow {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let nextContentKey = 1;

/** Checks `rows` and wraps them as content (frozen; rows are never copied). */
export function datasetContent(name: string, rows: DatasetRow[], opts: { key?: string; bytes?: number } = {}): DatasetContent {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new GemError('DATASET_INVALID', 'A dataset name must be a non-empty string.', { name: typeof name === 'string' ? name : null });
  }
  if (!Array.isArray(rows)) {
    throw new GemError('DATASET_INVALID', `Dataset '${name}': rows must be an array of objects.`, { name });
  }
  if (rows.length === 0) {
    throw new GemError('DATASET_INVALID', `Dataset '${name}' has no rows.`, { name });
  }
  const bad = rows.findIndex((r) => !isPlainRow(r));
  if (bad >= 0) {
    throw new GemError('DATASET_INVALID', `Dataset '${name}': row ${bad} is not an object.`, { name, row: bad });
  }
  return {
    key: opts.key ?? `rows-${process.pid}-${nextContentKey++}`,
    rows: Object.isFrozen(rows) ? rows : Object.freeze(rows.slice()),
    columns: Object.keys(rows[0]),
    bytes: opts.bytes ?? 0,
  };
}

export interface DatasetRegistryOptions {
  /** Looked up, in order, for names not registered here. */
  bases?: readonly DatasetLookup[];
}

export class DatasetRegistry implements DatasetLookup {
  private readonly own = new Map<string, RegisteredDataset>();
  private readonly bases: readonly DatasetLookup[];

  constructor(opts: DatasetRegistryOptions = {}) {
    this.bases = opts.bases ?? [];
  }

  /** Registers (or replaces) a named table; returns what was stored. */
  register(name: string, rows: DatasetRow[]): RegisteredDataset {
    return this.put(name, datasetContent(name, rows));
  }

  /** Registers (or replaces) `name` with existing content (no copy). */
  put(name: string, content: DatasetContent): RegisteredDataset {
    const entry: RegisteredDataset = { name, content, rows: content.rows, columns: content.columns };
    this.own.set(name, entry);
    return entry;
  }

  getDataset(name: string): RegisteredDataset | undefined {
    const own = this.own.get(name);
    if (own) return own;
    for (const b of this.bases) {
      const found = b.getDataset(name);
      if (found) return found;
    }
    return undefined;
  }

  /** The entry registered here under `name` (not a base's). */
  getOwn(name: string): RegisteredDataset | undefined {
    return this.own.get(name);
  }

  delete(name: string): boolean {
    return this.own.delete(name);
  }

  clear(): void {
    this.own.clear();
  }

  /** Tables registered here, not in the bases. */
  entries(): RegisteredDataset[] {
    return [...this.own.values()];
  }

  /** Bytes of the distinct contents registered here. */
  bytes(): number {
    const seen = new Set<DatasetContent>();
    let n = 0;
    for (const e of this.own.values()) {
      if (seen.has(e.content)) continue;
      seen.add(e.content);
      n += e.content.bytes;
    }
    return n;
  }
}

/** The process's own registry: what in-process TypeScript code registers. */
export const defaultDatasets = new DatasetRegistry();

// ── The library edge: module-level functions on the default registry ─────────────────────────────

/** Registers (or replaces) a named table in the process's registry. */
export function registerDataset(name: string, rows: DatasetRow[]): RegisteredDataset {
  return defaultDatasets.register(name, rows);
}

export function getRegisteredDataset(name: string): RegisteredDataset | undefined {
  return defaultDatasets.getDataset(name);
}

export function unregisterDataset(name: string): boolean {
  return defaultDatasets.delete(name);
}

/** Registered names with their sizes. */
export function listDatasets(): { name: string; rows: number; columns: string[] }[] {
  return defaultDatasets.entries().map((d) => ({ name: d.name, rows: d.rows.length, columns: d.columns }));
}
