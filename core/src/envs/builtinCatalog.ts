/**
 * The built-in catalogue as fresh objects: the env ids, the built-in wrappers and the tool wrappers.
 * Each call defines the wrappers into a new WrapperCatalog, so a server, a CLI command or a test owns
 * what it gets and what it adds to it. (The env ids still come from the process's registry, which the
 * env families fill as they load: see index.ts.)
 */
import { defaultRegistry, EnvRegistry } from '../registry/registry.ts';
import { WrapperCatalog } from '../registry/wrapperCatalog.ts';
import { registerToolWrappers } from '../tools/registerToolWrappers.ts';
import { registerBuiltinWrappers } from '../wrappers/builtinWrappers.ts';
import './index.ts';

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

/** The built-in envs (an overlay: what the caller registers stays in it) and a new wrapper catalogue. */
export function builtinCatalog(): Catalog {
  return {
    envs: new EnvRegistry({ base: defaultRegistry, label: defaultRegistry.label }),
    wrappers: builtinWrappers(),
  };
}
