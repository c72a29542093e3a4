/**
 * The built-in catalogue as fresh objects: the env ids, the built-in wrappers and the tool wrappers.
 * Each call registers them into a new EnvRegistry and a new WrapperCatalog, so a server, a CLI
 * command or a test owns what it gets and what it adds to it; nothing registers by being imported.
 */
import { DatasetRegistry } from '../data/datasetRegistry.ts';
import { EnvRegistry } from '../registry/registry.ts';
import { WrapperCatalog } from '../registry/wrapperCatalog.ts';
import { registerToolWrappers } from '../tools/registerToolWrappers.ts';
import { registerBuiltinWrappers } from '../wrappers/builtinWrappers.ts';
import { registerBuiltinEnvs } from './builtinEnvs.ts';

export interface Catalog {
  envs: EnvRegistry;
  wrappers: WrapperCatalog;
}

/** A new wrapper catalogue holding GEM's wrappers, our step limit and the tool wrappers. */
export function builtinWrappers(): WrapperCatalog {
  const wrappers = new WrapperCatalog({ label: 'built-in wrappers' });
  registerBuiltinWrappers(wrappers);
  registerToolWrappers(wrappers);
  return wrappers;
}

/** A new registry of the built-in envs (with its own, empty datasets) and a new wrapper catalogue. */
export function builtinCatalog(): Catalog {
  const envs = new EnvRegistry({ datasets: new DatasetRegistry(), label: 'built-in catalog' });
  registerBuiltinEnvs(envs);
  return { envs, wrappers: builtinWrappers() };
}
