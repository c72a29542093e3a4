/**
 * Binding a task env's `dataset` option to data when the env is made, in the thread that makes it.
 *
 * The registry that resolves an env's options knows which tables the caller can see (a server
 * session's pushed datasets); the env itself and any worker thread it lives in do not. So
 * `resolveOptions` replaces a dataset *name* (or nothing, when a table is registered under the id's
 * own names) by a BoundTable: the rows themselves for an env made in this thread, and for a cpuBound
 * env also the rows serialized once into a SharedArrayBuffer, which a worker thread receives without a
 * copy and decodes once per worker (decodeBoundTable), however many envs share it.
 */
import type { OptionBinding } from '../core/spec.ts';
import { datasetSourceFor, hubLocation, type DatasetOptions } from './datasetOptions.ts';
import { bindTable, isBoundTable, type BoundTable } from './boundTable.ts';
import { datasetContent, type DatasetContent, type DatasetLookup, type DatasetRow } from './datasetRegistry.ts';
import type { DataDirs } from './dataDirs.ts';
import { allowedDatasetPath, registeredNames } from './datasetSource.ts';
import { TASK_DATASETS } from './taskCatalog.ts';

/** Inline rows bound once per options object, so every env made from one spec shares them. */
const inlineContents = new WeakMap<object, DatasetContent>();

/**
 * The BoundTable for an env's validated options, a checked path, or undefined to leave the option as
 * it is (a path, an unknown name, or no table registered under the id's names: the env then reports
 * what it tried). With `dataDirs` (a server's registry) a path is allowed only inside those
 * directories and the env gets its real path; anything else fails here with DATASET_MISSING.
 */
export function bindDatasetOption(
  envId: string,
  options: Record<string, unknown>,
  datasets: DatasetLookup | undefined,
  cpuBound: boolean,
  dataDirs?: DataDirs,
): BoundTable | string | undefined {
  const option = options.dataset;
  if (Array.isArray(option)) {
    // Inline rows reach in-thread envs as they are; worker envs get them serialized once, not per env.
    if (!cpuBound) return undefined;
    let content = inlineContents.get(option);
    if (!content) {
      content = datasetContent(envId, option as DatasetRow[]);
      inlineContents.set(option, content);
    }
    return bindTable(content, `${option.length} rows given inline`, true);
  }
  if (typeof option === 'string') {
    const found = datasets?.getDataset(option);
    if (found) return bindTable(found.content, `registered dataset '${option}'`, cpuBound);
  } else if (option !== undefined) return undefined;
  const entry = TASK_DATASETS.find((e) => e.id === envId);
  const location = entry ? hubLocation(entry, options as DatasetOptions) : undefined;
  if (option === undefined && datasets) {
    for (const name of registeredNames(envId, location)) {
      const found = datasets.getDataset(name);
      if (found) return bindTable(found.content, `registered dataset '${name}'`, cpuBound);
    }
  }
  if (!dataDirs || (option === undefined && !entry)) return undefined;
  return allowedDatasetPath({ envId, location, dataset: option, split: options.split as string | undefined, dataDirs });
}

/**
 * Throws DATASET_MISSING when a catalog id's data is nowhere to be found. An env made in this thread
 * finds that out in its constructor; one made in a worker thread only would at its first reset, so
 * the registry asks here and `make` fails alike for every family.
 */
export function assertDatasetPresent(envId: string, options: Record<string, unknown>): void {
  const entry = TASK_DATASETS.find((e) => e.id === envId);
  if (entry && !isBoundTable(options.dataset)) datasetSourceFor(entry, options as DatasetOptions);
}

/**
 * Options as a client may see them (a `spec` reply): a bound table is shown as where it came from,
 * never as its rows or bytes.
 */
export function describeBoundOptions(options: Record<string, unknown>): Record<string, unknown> {
  return isBoundTable(options.dataset) ? { ...options, dataset: options.dataset.origin } : options;
}

/**
 * The task envs' binding (registered with every math, code and QA id): before validation a table
 * bound already (a worker thread's make) is set aside; after it, the `dataset` option is bound.
 */
export const datasetBinding: OptionBinding = {
  take(options) {
    if (!isBoundTable(options.dataset)) return { rest: options };
    const { dataset, ...rest } = options;
    return { bound: { dataset }, rest };
  },
  bind(id, options, scope: { datasets?: DatasetLookup; dataDirs?: DataDirs }, cpuBound) {
    const bound = bindDatasetOption(id, options, scope.datasets, cpuBound, scope.dataDirs);
    return bound === undefined ? undefined : { dataset: bound };
  },
};

