/**
 * The library edge for env ids: importing this module fills the process's registry (`make`,
 * `listEnvs`, … of defaultRegistry.ts) with every built-in env, once. Servers and the CLI build their own
 * catalogue with builtinCatalog() instead.
 */
import { defaultRegistry } from './defaultRegistry.ts';
import { registerBuiltinEnvs } from './builtinEnvs.ts';

registerBuiltinEnvs(defaultRegistry);
