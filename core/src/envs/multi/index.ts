/** The multi-agent games (multi:… ids), built on core/src/multiagent. */
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerLiarsDice } from './liarsDice.ts';
import { registerTicTacToe } from './ticTacToe.ts';

export function registerMultiAgentGames(registry: EnvRegistry): void {
  registerTicTacToe(registry);
  registerLiarsDice(registry);
}
