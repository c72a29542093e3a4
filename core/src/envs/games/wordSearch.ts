/**
 * WordSearch: words hidden across (left to right) or down (top to bottom) in a grid of random
 * letters. Each word found, by naming its first and last cell, earns 1/(number of words); finding
 * them all ends the game. The words come from our word lists (en-basic, or the large `en` list for
 * hardcore play).
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { Rng } from '../../core/rng.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';
import { layoutWords, renderLetterGrid } from './wordGrid.ts';
import type { PlacedWord, WordGrid } from './wordGrid.ts';
import { loadWords } from './words.ts';

export const WordSearchOptions = z
  .object({
    /** Words from the large `en` list (true) or the basic one (false). */
    hardcore: z.boolean().default(false),
    max_turns: z.number().int().positive().default(20),
    num_words: z.number().int().min(1).max(20).default(5),
    /** `-random` variants flip `hardcore` at every reset. */
    random: z.boolean().default(false),
  })
  .strict();
export type WordSearchOptions = z.infer<typeof WordSearchOptions>;

/** Hidden words are 3 to 8 letters long, so grids stay at most 12×12. */
const WORD_LENGTH = { minLength: 3, maxLength: 8 };
const ALPHABET = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];

/** Number of times `word` reads across or down in the grid. */
function occurrences(letters: readonly string[], size: number, word: string): number {
  let count = 0;
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) {
      for (const [dr, dc] of [[0, 1], [1, 0]]) {
        let k = 0;
        while (k < word.length && r + dr * k < size && c + dc * k < size && letters[(r + dr * k) * size + c + dc * k] === word[k]) k++;
        if (k === word.length) count++;
      }
    }
  }
  return count;
}

/**
 * Fills the empty cells with random letters so that no hidden word appears a second time by chance;
 * undefined if that keeps failing (e.g. one hidden word spells part of another).
 */
function fillGrid(words: readonly string[], size: number, rng: Rng, base: readonly string[]): string[] | undefined {
  for (let tries = 0; tries < 20; tries++) {
    const letters = base.map((l) => l || rng.choice(ALPHABET));
    if (words.every((w) => occurrences(letters, size, w) === 1)) return letters;
  }
  return undefined;
}

interface State {
  size: number;
  letters: string[];
  words: PlacedWord[];
  found: boolean[];
  /** Every span tried so far, as "r1 c1 r2 c2", for GEM's repeated-guess rule. */
  tried: string[];
  maxTurns: number;
  turn: number;
}

export class WordSearch extends BaseEnv<State> {
  constructor(readonly options: WordSearchOptions, seed?: number) {
    super(seed);
  }

  protected clone(): WordSearch {
    return new WordSearch(this.options);
  }

  protected newEpisode(): ResetResult {
    const hardcore = this.options.random ? this.rng.bool() : this.options.hardcore;
    const pool = loadWords(hardcore ? 'en' : 'en-basic', WORD_LENGTH);
    let grid: WordGrid;
    let words: PlacedWord[];
    let letters: string[] | undefined;
    do {
      grid = layoutWords(pool, this.options.num_words, this.rng, false);
      words = grid.placed.map((w) => ({ ...w, word: w.word.toUpperCase() }));
      letters = fillGrid(
        words.map((w) => w.word),
        grid.size,
        this.rng,
        grid.letters.map((l) => l.toUpperCase()),
      );
    } while (!letters);
    this.state = {
      size: grid.size,
      letters,
      words,
      found: words.map(() => false),
      tried: [],
      maxTurns: this.options.max_turns,
      turn: 0,
    };
    const n = words.length;
    const observation =
      `You are taking part in a Word Search challenge (${hardcore ? 'hardcore' : 'basic'} words). ${n} English ` +
      `word${n > 1 ? 's are' : ' is'} hidden in the ${grid.size}×${grid.size} letter grid below, each reading ` +
      `either across (left to right) or down (top to bottom). Rows and columns are numbered from 0.\n` +
      `To claim a word, give the row and column of its first letter and of its last letter as ` +
      `\\boxed{start_row start_col end_row end_col} — for example \\boxed{0 2 0 6} for a word across row 0 ` +
      `from column 2 to column 6. Letters of words you have found are shown in [ ]. Diagonal spans, cells ` +
      `outside the grid and repeated guesses are invalid. You have ${this.options.max_turns} turns; your ` +
      `earlier guesses will be shown below.`;
    return { observation, info: this.info() };
  }

  private info(): { suffix: string } {
    const s = this.state;
    const marked = new Set<number>();
    s.words.forEach((w, k) => {
      if (s.found[k]) for (const i of this.cellsOf(w)) marked.add(i);
    });
    const board = renderLetterGrid(s.size, (i) => (marked.has(i) ? `[${s.letters[i]}]` : ` ${s.letters[i]} `));
    const found = s.found.filter(Boolean).length;
    return { suffix: `Current board:\n${board}\nWords found: ${found}/${s.words.length}\nEnter your guess.` };
  }

  private cellsOf(w: PlacedWord): number[] {
    return Array.from({ length: w.word.length }, (_, k) => (w.row + (w.across ? 0 : k)) * this.state.size + w.col + (w.across ? k : 0));
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const atLimit = s.turn >= s.maxTurns;
    const m = lastBoxedMatch(action, /^(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, your guess was not in the required format: \\boxed{start_row start_col end_row end_col}.`,
        atLimit,
        this.info(),
      );
    }
    const [r1, c1, r2, c2] = m.slice(1, 5).map(Number);
    const span = `${r1} ${c1} ${r2} ${c2}`;
    let reward: number = GameReward.invalidAction;
    let observation: string;
    const hit = s.words.findIndex((w) => {
      const [er, ec] = [w.row + (w.across ? 0 : w.word.length - 1), w.col + (w.across ? w.word.length - 1 : 0)];
      return (r1 === w.row && c1 === w.col && r2 === er && c2 === ec) || (r2 === w.row && c2 === w.col && r1 === er && c1 === ec);
    });
    if (Math.max(r1, c1, r2, c2) >= s.size) {
      observation = `At turn ${s.turn}, you guessed ${span}, but the grid only has rows and columns 0 to ${s.size - 1}.`;
    } else if (r1 !== r2 && c1 !== c2) {
      observation = `At turn ${s.turn}, you guessed ${span}, which is not a straight line across or down.`;
    } else if (s.tried.includes(span)) {
      observation = `At turn ${s.turn}, you guessed ${span}, which you have already tried.`;
    } else if (hit >= 0 && s.found[hit]) {
      s.tried.push(span);
      observation = `At turn ${s.turn}, you guessed ${span}, but you have already found that word.`;
    } else if (hit >= 0) {
      s.tried.push(span);
      s.found[hit] = true;
      reward = 1 / s.words.length;
      if (s.found.every(Boolean)) {
        return {
          observation: `Congratulations! You found all ${s.words.length} words by turn ${s.turn}.`,
          reward,
          terminated: true,
          truncated: false,
          info: this.info(),
        };
      }
      observation = `At turn ${s.turn}, you found the word ${s.words[hit].word} at ${span}.`;
    } else {
      s.tried.push(span);
      reward = GameReward.fail;
      observation = `At turn ${s.turn}, you guessed ${span}, but no hidden word lies exactly there.`;
    }
    if (atLimit) return turnLimitStep(reward, this.info());
    return { observation, reward, terminated: false, truncated: false, info: this.info() };
  }

  sampleRandomAction(): string {
    const size = this.state?.size ?? 8;
    const rng = this.actionRng;
    const length = rng.int(Math.min(3, size), Math.min(8, size));
    const across = rng.bool();
    const r = rng.int(0, size - (across ? 1 : length));
    const c = rng.int(0, size - (across ? length : 1));
    return `\\boxed{${r} ${c} ${across ? r : r + length - 1} ${across ? c + length - 1 : c}}`;
  }
}

export function registerWordSearch(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:WordSearch-v0',
    description: 'Find words hidden across or down in a grid of letters.',
    schema: WordSearchOptions,
    create: (o, _spec, seed) => new WordSearch(o, seed),
    variants: {
      easy: { hardcore: false, num_words: 5, max_turns: 20 },
      hard: { hardcore: true, num_words: 5, max_turns: 20 },
      random: { random: true, num_words: 5, max_turns: 20 },
    },
  });
}
