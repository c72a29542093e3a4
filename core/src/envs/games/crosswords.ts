/**
 * Crosswords: a few words from our own clue list (core/data/crosswords/clues.json) laid out on a
 * small grid; the player fills it one letter per turn. Each correct letter earns 1/(letter cells),
 * so a full grid sums to 1.0. A wrong letter scores 0; a black, filled or off-grid cell is invalid.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import { GemError } from '../../core/errors.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';
import { layoutWords, renderLetterGrid } from './wordGrid.ts';

export const CrosswordsOptions = z
  .object({
    /** Rare words (true) or common ones (false). */
    hardcore: z.boolean().default(false),
    max_turns: z.number().int().positive().default(100),
    num_words: z.number().int().min(1).max(20).default(5),
    /** `-random` variants flip `hardcore` at every reset (GEM's own `-random` crashes). */
    random: z.boolean().default(false),
  })
  .strict();
export type CrosswordsOptions = z.infer<typeof CrosswordsOptions>;

interface ClueEntry {
  word: string;
  clue: string;
}

const CLUES_FILE = fileURLToPath(new URL('../../../data/crosswords/clues.json', import.meta.url));
let clueData: { common: ClueEntry[]; rare: ClueEntry[] } | undefined;

/** The clue list, read once per process and checked, so a broken data file fails loudly. */
export function loadClues(): { common: readonly ClueEntry[]; rare: readonly ClueEntry[] } {
  if (!clueData) {
    const data = JSON.parse(readFileSync(CLUES_FILE, 'utf8')) as { common?: ClueEntry[]; rare?: ClueEntry[] };
    for (const key of ['common', 'rare'] as const) {
      const list = data[key];
      if (!Array.isArray(list) || list.length === 0 || !list.every((e) => /^[a-z]+$/.test(e?.word) && typeof e.clue === 'string')) {
        throw new GemError('DATASET_INVALID', `${CLUES_FILE}: '${key}' must be a non-empty list of {word (a–z), clue}.`);
      }
    }
    clueData = data as { common: ClueEntry[]; rare: ClueEntry[] };
  }
  return clueData;
}

interface Clue {
  clue: string;
  row: number;
  col: number;
  across: boolean;
  length: number;
}

interface State {
  size: number;
  /** Solution letters, '' for black cells. */
  solution: string[];
  /** What the player has filled so far ('' = still blank). */
  filled: string[];
  clues: Clue[];
  letterCells: number;
  maxTurns: number;
  turn: number;
}

export class Crosswords extends BaseEnv<State> {
  constructor(readonly options: CrosswordsOptions, seed?: number) {
    super(seed);
  }

  protected clone(): Crosswords {
    return new Crosswords(this.options);
  }

  protected newEpisode(): ResetResult {
    const { random, num_words: numWords, max_turns: maxTurns } = this.options;
    const hardcore = random ? this.rng.bool() : this.options.hardcore;
    const entries = hardcore ? loadClues().rare : loadClues().common;
    const clueOf = new Map(entries.map((e) => [e.word, e.clue]));
    const grid = layoutWords(
      entries.map((e) => e.word),
      numWords,
      this.rng,
      true,
    );
    // Clues in reading order of their first cell.
    const clues = grid.placed
      .map((p) => ({ clue: clueOf.get(p.word)!, row: p.row, col: p.col, across: p.across, length: p.word.length }))
      .sort((a, b) => a.row - b.row || a.col - b.col || Number(b.across) - Number(a.across));
    const letterCells = grid.letters.filter((l) => l).length;
    this.state = {
      size: grid.size,
      solution: grid.letters,
      filled: grid.letters.map(() => ''),
      clues,
      letterCells,
      maxTurns,
      turn: 0,
    };
    const observation =
      `You are playing Crosswords. The grid below has ${grid.size} rows and ${grid.size} columns, numbered ` +
      `from 0. Cells marked '_' hold a letter you have to find; cells marked '.' are blocked. Each clue ` +
      `gives the direction of its word (across = left to right, down = top to bottom), the cell where it ` +
      `starts and its length.\n` +
      `Fill one cell per turn with \\boxed{row column letter}, for example \\boxed{0 0 d} or ` +
      `\\boxed{1 2 G} (letters are not case-sensitive). A blocked or already filled cell is an invalid ` +
      `move, and a wrong letter earns nothing. You have ${maxTurns} turns; your earlier moves will be ` +
      `shown below.`;
    return { observation, info: this.info() };
  }

  private info(): { suffix: string } {
    const s = this.state;
    const board = renderLetterGrid(s.size, (i) => (!s.solution[i] ? ' . ' : s.filled[i] ? ` ${s.filled[i].toUpperCase()} ` : ' _ '));
    const clues = s.clues.map(
      (c, k) =>
        `${k + 1}. ${c.clue} (${c.across ? 'across' : 'down'}, starting at row ${c.row}, column ${c.col}): ${c.length} letters`,
    );
    return { suffix: `Current board:\n${board}\nClues:\n${clues.join('\n')}\nEnter your guess.` };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const atLimit = s.turn >= s.maxTurns;
    const m = lastBoxedMatch(action, /^(\d+)\s+(\d+)\s+([A-Za-z])$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, your guess was not in the required format: \\boxed{row column letter}.`,
        atLimit,
        this.info(),
      );
    }
    const [row, col, letter] = [Number(m[1]), Number(m[2]), m[3].toLowerCase()];
    const cell = row * s.size + col;
    let reward: number = GameReward.invalidAction;
    let observation: string;
    if (row >= s.size || col >= s.size) {
      observation = `At turn ${s.turn}, you chose row ${row}, column ${col}, which is outside the ${s.size}×${s.size} grid.`;
    } else if (!s.solution[cell]) {
      observation = `At turn ${s.turn}, you chose row ${row}, column ${col}, which is a blocked cell.`;
    } else if (s.filled[cell]) {
      observation = `At turn ${s.turn}, you chose row ${row}, column ${col}, which is already filled.`;
    } else if (s.solution[cell] !== letter) {
      reward = GameReward.fail;
      observation = `At turn ${s.turn}, you guessed ${letter.toUpperCase()} for row ${row}, column ${col}, which is not the right letter.`;
    } else {
      s.filled[cell] = letter;
      reward = 1 / s.letterCells;
      if (s.filled.filter((l) => l).length === s.letterCells) {
        return {
          observation: `Congratulations! You completed the crossword at turn ${s.turn}.`,
          reward,
          terminated: true,
          truncated: false,
          info: this.info(),
        };
      }
      observation = `At turn ${s.turn}, you placed ${letter.toUpperCase()} in row ${row}, column ${col}, which is correct.`;
    }
    if (atLimit) return turnLimitStep(reward, this.info());
    return { observation, reward, terminated: false, truncated: false, info: this.info() };
  }

  sampleRandomAction(): string {
    const size = this.state?.size ?? 5;
    const letter = String.fromCharCode(97 + this.actionRng.int(0, 25));
    return `\\boxed{${this.actionRng.int(0, size - 1)} ${this.actionRng.int(0, size - 1)} ${letter}}`;
  }
}

export function registerCrosswords(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:Crosswords-v0',
    description: 'Fill a small crossword from clues, one letter per turn.',
    schema: CrosswordsOptions,
    create: (o, _spec, seed) => new Crosswords(o, seed),
    variants: {
      easy: { hardcore: false, num_words: 3, max_turns: 30 },
      hard: { hardcore: true, num_words: 3, max_turns: 40 },
      random: { random: true, num_words: 3, max_turns: 20 },
    },
  });
}
