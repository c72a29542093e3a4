/**
 * Importing this module registers every built-in env into the process's registry (the one env side
 * effect left; wrappers and tool wrappers are defined only by builtinCatalog). Each family registers
 * itself in its own index so that families can grow without touching each other.
 */
import './games/index.ts';
import './math/index.ts';
import './code/index.ts';
import './logic/index.ts';
import './qa/index.ts';
import './reasoning/index.ts';
import './eval/index.ts';
import './multi/index.ts';
import './webshop/index.ts';
