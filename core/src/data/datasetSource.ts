/**
 * Where a task env's problems come from. `resolveDataset` runs inside `make` (synchronously), so a
 * missing dataset fails there with a message that says how to provide it; the rows themselves are
 * read on first use and shared by every env over the same file or registered table.
 *
 * Order: the `dataset` option (rows, a table bound by the registry, a registered name, a file or a
 * `datasets` folder); then a table registered under the env id, `<hub>:<split>` or `<hub>`; then
 * `$GEM_TS_DATA_DIR/<hub>/…` (never outside it, whatever the hub name says). Registered tables are looked
 * up only in the `datasets` given: envs made through a registry get theirs bound beforehand
 * (datasetBinding.ts), never from a process-wide map. A registry that limits files to data directories
 * (a server's) checks a path before the env sees it: `allowedDatasetPath`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Hints } from '../core/codeHint.ts';
import { GemError } from '../core/errors.ts';
import { boundRows, isBoundTable, type BoundTable } from './boundTable.ts';
import { DataDirs } from './dataDirs.ts';
import type { DatasetLookup, DatasetRow } from './datasetRegistry.ts';
import { filesInFolder, isDirectory } from './hfDiskLayout.ts';
import { isTableFile, readTable } from './readTable.ts';

/** Where GEM itself loads an id's data from (the Hugging Face hub). */
export interface HubLocation {
  hub: string;
  split?: string;
  /** A hub revision (branch, tag or commit); a table pushed for it is registered as `<hub>@<revision>`. */
  revision?: string;
}

export interface DatasetSource {
  /** Says where the rows come from, for error messages and infos. */
  readonly origin: string;
  rows(): Promise<readonly DatasetRow[]>;
}

export type DatasetOption = string | DatasetRow[] | BoundTable;

function fromRows(origin: string, rows: readonly DatasetRow[]): DatasetSource {
  const ready = Promise.resolve(rows);
  return { origin, rows: () => ready };
}

/** Decoded on first use: a worker env's table is decoded when its first reset needs the rows. */
function fromBound(table: BoundTable): DatasetSource {
  let rows: Promise<readonly DatasetRow[]> | undefined;
  return { origin: table.origin, rows: () => (rows ??= new Promise((resolve) => resolve(boundRows(table)))) };
}

function fromFiles(origin: string, files: string[]): DatasetSource {
  let loaded: Promise<readonly DatasetRow[]> | undefined;
  return {
    origin,
    rows: () => {
      // A failed read is retried on the next call rather than cached forever.
      loaded ??= Promise.all(files.map(readTable)).then((parts) => (parts.length === 1 ? parts[0] : parts.flat()));
      loaded.catch(() => (loaded = undefined));
      return loaded;
    },
  };
}

/** A path to a table file or a folder of one; undefined if nothing is there. */
function fromPath(path: string, split: string | undefined): DatasetSource | undefined {
  const full = resolve(path);
  if (isDirectory(full)) {
    const files = filesInFolder(full, split);
    return files ? fromFiles(full, files) : undefined;
  }
  if (existsSync(full)) {
    if (!isTableFile(full)) {
      throw new GemError('DATASET_INVALID', `'${full}' is not a JSONL, JSON, Parquet or Arrow IPC file.`, { path: full });
    }
    return fromFiles(full, [full]);
  }
  return undefined;
}

/** `<hub>` or `<hub>@<revision>`: the hub part of a registered name. */
function hubName(loc: HubLocation): string {
  return loc.revision ? `${loc.hub}@${loc.revision}` : loc.hub;
}

/** The name a table for `loc` is registered under: `<hub>[@<revision>]:<split>`, or the hub part alone. */
export function registerName(loc: HubLocation): string {
  return loc.split ? `${hubName(loc)}:${loc.split}` : hubName(loc);
}

/** The names a table for `envId` may be registered under, most specific first. */
export function registeredNames(envId: string, loc: HubLocation | undefined): string[] {
  // A table registered under the id stands for the id's own data, not for another revision of it.
  const names = loc?.revision ? [] : [envId];
  if (loc) {
    if (loc.split) names.push(registerName(loc));
    // A bare hub name stands for its only (or training) split, never for a named evaluation split.
    if (!loc.split || loc.split === 'train') names.push(hubName(loc));
  }
  return names;
}

/**
 * DATASET_MISSING with the ways to provide the data. `fromHub` says that nothing named the data but
 * the hub location, so a client that can load it from the hub (gem_ts with `datasets`) may push it
 * under `data.register_as` and make the env again.
 */
function missing(envId: string, loc: HubLocation | undefined, tried: string, fromHub: boolean): GemError {
  const key = loc ? registerName(loc) : envId;
  const hints = new Hints();
  const where = loc ? `'${loc.hub}'${loc.split ? `, split '${loc.split}'` : ''}${loc.revision ? `, revision '${loc.revision}'` : ''}` : '';
  const lines = [
    `'${envId}' needs its dataset, which is not present here (${tried}).`,
    loc ? `GEM loads it from the Hugging Face hub: ${where}.` : '',
    'Provide it in one of these ways:',
    `  - a local file: ${hints.add({ kind: 'make', id: envId, options: { dataset: '/path/to/data.parquet' } })} (JSONL, JSON, Parquet, Arrow IPC, or a folder written by save_to_disk);`,
    `  - pushed by a process that has the data: ${hints.add({ kind: 'register_dataset', name: key, hub: loc?.hub, split: loc?.split })};`,
    loc ? `  - a file under $GEM_TS_DATA_DIR: <dir>/${loc.hub}/${loc.split ?? 'train'}.parquet (or .jsonl, .arrow).` : '',
  ];
  const data = { id: envId, hub: loc?.hub, split: loc?.split, revision: loc?.revision, register_as: key, from_hub: fromHub && loc !== undefined, hints: hints.list };
  return new GemError('DATASET_MISSING', lines.filter(Boolean).join('\n'), data);
}

export function resolveDataset(args: {
  envId: string;
  location?: HubLocation;
  dataset?: DatasetOption;
  split?: string;
  /** Registered tables to look names up in (none by default). */
  datasets?: DatasetLookup;
}): DatasetSource {
  const { envId, location, datasets } = args;
  const split = args.split ?? location?.split;
  const option = args.dataset;
  if (Array.isArray(option)) {
    if (option.length === 0) throw new GemError('DATASET_INVALID', `'${envId}': the 'dataset' option has no rows.`, { id: envId });
    return fromRows(`${option.length} rows given inline`, option);
  }
  if (isBoundTable(option)) return fromBound(option);
  if (typeof option === 'string') {
    const registered = datasets?.getDataset(option);
    if (registered) return fromRows(`registered dataset '${option}'`, registered.rows);
    const fromFile = fromPath(option, split);
    if (fromFile) return fromFile;
    throw missing(envId, location, `'${option}' is neither a registered dataset name nor an existing file`, false);
  }
  for (const name of datasets ? registeredNames(envId, location) : []) {
    const registered = datasets!.getDataset(name);
    if (registered) return fromRows(`registered dataset '${name}'`, registered.rows);
  }
  const dataDir = process.env.GEM_TS_DATA_DIR;
  if (dataDir && location) {
    const inDir = isDirectory(dataDir) ? DataDirs.of([dataDir]).find(location.hub, split) : undefined;
    const found = inDir === undefined ? undefined : fromPath(inDir, split);
    if (found) return found;
  }
  const tried = dataDir ? `no registered table and nothing under GEM_TS_DATA_DIR=${dataDir}` : 'no registered table, GEM_TS_DATA_DIR unset';
  throw missing(envId, location, tried, true);
}

/**
 * For a registry that limits server-side files to `dataDirs`: the real path the env may read for a
 * `dataset` path (or, with no option, for `<data dir>/<hub>`), else DATASET_MISSING. Outside, missing
 * and unreadable give the same error, so a client learns nothing about files it may not read.
 */
export function allowedDatasetPath(args: { envId: string; location?: HubLocation; dataset?: string; split?: string; dataDirs: DataDirs }): string {
  const { envId, location, dataset, dataDirs } = args;
  const split = args.split ?? location?.split;
  if (dataset !== undefined) {
    const found = dataDirs.check(dataset, split);
    if (found !== undefined) return found;
    throw missing(envId, location, `'${dataset}' is neither a registered dataset name nor a table under a data directory this server allows (gem-ts serve --data-dir)`, false);
  }
  const found = location ? dataDirs.find(location.hub, split) : undefined;
  if (found !== undefined) return found;
  throw missing(envId, location, 'no registered table and nothing under the data directories this server allows', true);
}
