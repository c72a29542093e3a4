/**
 * Reads a table file into rows, by extension: `.jsonl`/`.json`, `.parquet`, `.arrow`/`.feather`/`.ipc`.
 * Results are cached per path and modification time, so many envs over one file share one copy; the
 * cache holds the rows weakly once read, so a file's rows are freed when no env uses them any more.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { GemError } from '../core/errors.ts';
import type { DatasetRow } from './datasetRegistry.ts';
import { parseArrowIpc } from './readers/arrowIpc.ts';
import { parseJson, parseJsonl } from './readers/jsonl.ts';
import { parseParquet } from './readers/parquet.ts';

export const TABLE_EXTENSIONS = ['.jsonl', '.json', '.parquet', '.arrow', '.feather', '.ipc'] as const;

export function isTableFile(path: string): boolean {
  return (TABLE_EXTENSIONS as readonly string[]).includes(extname(path).toLowerCase());
}

async function parseByExtension(path: string): Promise<DatasetRow[]> {
  const ext = extname(path).toLowerCase();
  const bytes = await readFile(path);
  switch (ext) {
    case '.jsonl':
      return parseJsonl(bytes.toString('utf8'), path);
    case '.json':
      return parseJson(bytes.toString('utf8'), path);
    case '.parquet':
      return parseParquet(bytes, path);
    case '.arrow':
    case '.feather':
    case '.ipc':
      return parseArrowIpc(bytes, path);
    default:
      throw new GemError(
        'DATASET_INVALID',
        `${path}: unknown table format '${ext}'; use one of ${TABLE_EXTENSIONS.join(', ')}.`,
        { path },
      );
  }
}

type CacheEntry = { mtimeMs: number; loading?: Promise<readonly DatasetRow[]>; rows?: WeakRef<readonly DatasetRow[]> };
const cache = new Map<string, CacheEntry>();
const forget = new FinalizationRegistry<string>((path) => {
  const hit = cache.get(path);
  if (hit && !hit.loading && hit.rows?.deref() === undefined) cache.delete(path);
});

export async function readTable(path: string): Promise<readonly DatasetRow[]> {
  const full = resolve(path);
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(full)).mtimeMs;
  } catch {
    throw new GemError('DATASET_MISSING', `Dataset file '${full}' does not exist.`, { path: full });
  }
  const hit = cache.get(full);
  if (hit && hit.mtimeMs === mtimeMs) {
    if (hit.loading) return hit.loading;
    const rows = hit.rows?.deref();
    if (rows) return rows;
  }
  const entry: CacheEntry = { mtimeMs };
  entry.loading = parseByExtension(full).then((r) => {
    if (r.length === 0) throw new GemError('DATASET_INVALID', `Dataset file '${full}' has no rows.`, { path: full });
    return Object.freeze(r);
  });
  cache.set(full, entry);
  entry.loading.then(
    (rows) => {
      entry.loading = undefined;
      entry.rows = new WeakRef(rows);
      forget.register(rows, full);
    },
    () => {
      if (cache.get(full) === entry) cache.delete(full);
    },
  );
  return entry.loading;
}
