/**
 * A bound table: a task env's dataset as the registry hands it over — its content key, where it came
 * from, and its rows (in the thread that bound it) or their node:v8 bytes in a SharedArrayBuffer (for
 * worker threads, decoded once per thread). A leaf: the binding (datasetBinding.ts) makes them, the
 * env's data source (datasetSource.ts) reads them, and neither imports the other for it.
 */
import { deserialize, serialize } from 'node:v8';
import { GemError } from '../core/errors.ts';
import type { DatasetContent, DatasetRow } from './datasetRegistry.ts';

/** The rows, present only in the thread that bound the table (structured clone drops symbol keys). */
const ROWS = Symbol('gem-ts bound rows');

export interface BoundTable {
  /** The content key: equal keys, equal rows. */
  gem_ts_table: string;
  /** Where the rows came from, for messages and infos. */
  origin: string;
  /** The rows serialized with node:v8, for worker threads (cpuBound envs only). */
  bytes?: SharedArrayBuffer;
  [ROWS]?: readonly DatasetRow[];
}

/**
 * Only a table bound in this process counts: it carries its rows (this thread) or a SharedArrayBuffer
 * (a worker's copy), neither of which a client's decoded request can hold, so a client cannot pass
 * a look-alike naming another tenant's content key.
 */
export function isBoundTable(value: unknown): value is BoundTable {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const t = value as BoundTable;
  return typeof t.gem_ts_table === 'string' && (t[ROWS] !== undefined || t.bytes instanceof SharedArrayBuffer);
}

/** One serialized copy per content, made the first time a worker env needs it. */
const serialized = new WeakMap<object, SharedArrayBuffer>();

function sharedBytes(content: DatasetContent): SharedArrayBuffer {
  let sab = serialized.get(content);
  if (!sab) {
    const buf = serialize(content.rows);
    sab = new SharedArrayBuffer(buf.length);
    new Uint8Array(sab).set(buf);
    serialized.set(content, sab);
  }
  return sab;
}

export function bindTable(content: DatasetContent, origin: string, forWorker: boolean): BoundTable {
  const table: BoundTable = { gem_ts_table: content.key, origin };
  if (forWorker) table.bytes = sharedBytes(content);
  Object.defineProperty(table, ROWS, { value: content.rows, enumerable: false });
  return table;
}

/** Rows decoded in this thread, by content key, alive while some env holds them. */
const decoded = new Map<string, WeakRef<readonly DatasetRow[]>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (decoded.get(key)?.deref() === undefined) decoded.delete(key);
});

/** The rows of a bound table: as bound in this thread, else decoded from its bytes once per thread. */
export function boundRows(table: BoundTable): readonly DatasetRow[] {
  const here = table[ROWS];
  if (here) return here;
  const cached = decoded.get(table.gem_ts_table)?.deref();
  if (cached) return cached;
  if (!table.bytes) {
    throw new GemError('DATASET_MISSING', `The dataset (${table.origin}) was bound in another thread without its bytes.`, { origin: table.origin });
  }
  const rows = Object.freeze(deserialize(Buffer.from(table.bytes)) as DatasetRow[]);
  decoded.set(table.gem_ts_table, new WeakRef(rows));
  forget.register(rows, table.gem_ts_table);
  return rows;
}
