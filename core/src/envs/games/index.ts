/** Registers every game: each game file registers its own ids (GEM's presets, reference/gem.md §2.2). */
import './guessTheNumber.ts';
import './mastermind.ts';
import './sudoku.ts';
import './fifteenPuzzle.ts';
import './game2048.ts';
import './sokoban.ts';
import './crosswords.ts';
import './wordSearch.ts';
import './minesweeper.ts';
import './wordle.ts';
import './hangman.ts';
import './towerOfHanoi.ts';
import './wikiGame.ts';
import './lampChain.ts';
