/**
 * Every built-in env id, registered into the registry it is given. Families register in the order
 * `gem-ts list` shows them (the eval:* sets last, as in GEM); each family owns its own function so
 * families grow without touching each other.
 */
import type { EnvRegistry } from '../registry/registry.ts';
import { registerCodeEnvs } from './code/index.ts';
import { registerEvalSets } from './eval/index.ts';
import { registerGames } from './games/index.ts';
import { registerLogicEnvs } from './logic/index.ts';
import { registerMathEnvs } from './math/index.ts';
import { registerMultiAgentGames } from './multi/index.ts';
import { registerOpenEnv } from './openenv/index.ts';
import { registerQaEnvs } from './qa/index.ts';
import { registerReasoningGym } from './reasoning/index.ts';
import { registerWebshop } from './webshop/index.ts';

export function registerBuiltinEnvs(registry: EnvRegistry): void {
  registerGames(registry);
  registerMathEnvs(registry);
  registerCodeEnvs(registry);
  registerLogicEnvs(registry);
  registerQaEnvs(registry);
  registerReasoningGym(registry);
  registerEvalSets(registry);
  registerMultiAgentGames(registry);
  registerWebshop(registry);
  // Needs a server: its `url` option has no default (checkEnvAll skips it; test/envs/openenv plays it).
  registerOpenEnv(registry);
}
