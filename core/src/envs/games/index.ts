/** Every game: each game file exports the registration of its own ids (GEM's presets, reference/gem.md §2.2). */
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerCrosswords } from './crosswords.ts';
import { registerFifteenPuzzle } from './fifteenPuzzle.ts';
import { registerGame2048 } from './game2048.ts';
import { registerGuessTheNumber } from './guessTheNumber.ts';
import { registerHangman } from './hangman.ts';
import { registerLampChain } from './lampChain.ts';
import { registerMastermind } from './mastermind.ts';
import { registerMinesweeper } from './minesweeper.ts';
import { registerPickLargest } from './pickLargest.ts';
import { registerSokoban } from './sokoban.ts';
import { registerSudoku } from './sudoku.ts';
import { registerTowerOfHanoi } from './towerOfHanoi.ts';
import { registerWikiGame } from './wikiGame.ts';
import { registerWordle } from './wordle.ts';
import { registerWordSearch } from './wordSearch.ts';

/** In the order `gem-ts list` shows them. */
const GAMES = [
  registerGuessTheNumber,
  registerMastermind,
  registerSudoku,
  registerFifteenPuzzle,
  registerGame2048,
  registerSokoban,
  registerCrosswords,
  registerWordSearch,
  registerMinesweeper,
  registerWordle,
  registerHangman,
  registerTowerOfHanoi,
  registerWikiGame,
  registerLampChain,
  registerPickLargest,
];

export function registerGames(registry: EnvRegistry): void {
  for (const registerGame of GAMES) registerGame(registry);
}
