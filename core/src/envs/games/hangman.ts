/**
 * Hangman: uncover a secret word by guessing letters or the whole word. As in GEM there is no life
 * counter, only the turn budget, and only a correct whole-word guess wins: a letter that appears in the
 * word scores 0.5 × (letters it uncovered) / length, and the winning word guess scores 0.5 × (share of
 * letters still hidden) + 0.5, so every win totals 1.0. `hardcore` draws from the large dictionary.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';
import { wordsOfLength, type WordListName } from './words.ts';

export const HangmanOptions = z
  .object({
    word_length: z.number().int().min(2).max(20).default(5),
    /** Draw the word from the large dictionary instead of the basic list. */
    hardcore: z.boolean().default(false),
    max_turns: z.number().int().positive().default(20),
    /** `-random` draws (word_length, max_turns) from GEM's presets at every reset. */
    random: z.boolean().default(false),
  })
  .strict();
export type HangmanOptions = z.infer<typeof HangmanOptions>;

/** GEM's `-random` presets as (word length, turns). */
const RANDOM_PRESETS = [
  [3, 10],
  [5, 15],
  [7, 20],
] as const;

interface State {
  length: number;
  maxTurns: number;
  /** Upper case. */
  secret: string;
  /** The board: a letter where uncovered, '_' elsewhere. */
  shown: string[];
  guessedLetters: string[];
  turn: number;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export class Hangman extends BaseEnv<State> {
  constructor(readonly options: HangmanOptions, seed?: number) {
    super(seed);
    if (options.random) for (const [len] of RANDOM_PRESETS) wordsOfLength(this.list, len);
    else wordsOfLength(this.list, options.word_length);
  }

  private get list(): WordListName {
    return this.options.hardcore ? 'en' : 'en-basic';
  }

  protected clone(): Hangman {
    return new Hangman(this.options);
  }

  protected newEpisode(): ResetResult {
    let { word_length: length, max_turns: maxTurns } = this.options;
    if (this.options.random) [length, maxTurns] = this.rng.choice(RANDOM_PRESETS);
    const secret = this.rng.choice(wordsOfLength(this.list, length)).toUpperCase();
    this.state = { length, maxTurns, secret, shown: new Array(length).fill('_'), guessedLetters: [], turn: 0 };
    const observation =
      `You are playing Hangman. Work out the hidden ${length}-letter word; the board shows '_' for ` +
      `each letter you have not uncovered yet.\n` +
      `Each turn, make one guess inside \\boxed{}: either a single letter, e.g. ${this.randomLetter()}, ` +
      `which uncovers every place it occurs, or the whole word, e.g. ${this.randomWord()}. ` +
      `Only a correct guess of the whole word wins the game, and you must win within ${maxTurns} turns.\n` +
      `Your guesses and the results will be listed below as you play.`;
    return { observation, info: { suffix: this.suffix() } };
  }

  private suffix(): string {
    const s = this.state;
    const header = s.shown.map((_, i) => `C${String(i).padStart(2, '0')}`).join(' ');
    const cells = s.shown.map((c) => `  ${c} `).join('');
    return `Here is the word so far:\n${header}\n${cells}\n\nEnter your guess.`;
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const m = lastBoxedMatch(action, /^[a-zA-Z]+$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, you did not give a guess in the required format: one letter or one word inside \\boxed{}.`,
        s.turn === s.maxTurns,
        { suffix: this.suffix() },
      );
    }
    const guess = m[0].toUpperCase();
    let observation: string;
    let reward: number = GameReward.invalidAction;
    if (guess.length > 1) {
      if (guess === s.secret) {
        const hidden = s.shown.filter((c) => c === '_').length / s.length;
        s.shown = s.secret.split('');
        return {
          observation: `Congratulations! The word was ${s.secret}, and you guessed it.`,
          reward: hidden * 0.5 + GameReward.success * 0.5,
          terminated: true,
          truncated: false,
          info: { suffix: this.suffix() },
        };
      }
      if (guess.length !== s.length) {
        observation = `At turn ${s.turn}, you guessed ${guess}, which has ${guess.length} letters, but the word has ${s.length}.`;
      } else {
        reward = GameReward.internalStep;
        observation = `At turn ${s.turn}, you guessed ${guess}, which is not the word.`;
      }
    } else if (s.guessedLetters.includes(guess)) {
      observation = `At turn ${s.turn}, you guessed the letter ${guess}, which you have already tried.`;
    } else {
      s.guessedLetters.push(guess);
      let uncovered = 0;
      for (let i = 0; i < s.length; i++) {
        if (s.secret[i] === guess) {
          s.shown[i] = guess;
          uncovered++;
        }
      }
      reward = (uncovered / s.length) * 0.5;
      observation = uncovered
        ? `At turn ${s.turn}, you guessed the letter ${guess}: it appears ${uncovered} time(s) in the word.`
        : `At turn ${s.turn}, you guessed the letter ${guess}, which is not in the word.`;
    }
    const info = { suffix: this.suffix() };
    if (s.turn >= s.maxTurns) return turnLimitStep(reward, info);
    return { observation, reward, terminated: false, truncated: false, info };
  }

  private randomLetter(): string {
    return `\\boxed{${this.actionRng.choice(LETTERS.split(''))}}`;
  }

  private randomWord(): string {
    const length = this.state?.length ?? (this.options.random ? RANDOM_PRESETS[0][0] : this.options.word_length);
    return `\\boxed{${this.actionRng.choice(wordsOfLength(this.list, length)).toUpperCase()}}`;
  }

  /** A letter or a word of the right length, with equal odds (GEM's mix). */
  sampleRandomAction(): string {
    return this.actionRng.bool() ? this.randomLetter() : this.randomWord();
  }
}

export function registerHangman(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:Hangman-v0',
    description: 'Uncover a hidden word letter by letter, then name it.',
    schema: HangmanOptions,
    create: (o, _spec, seed) => new Hangman(o, seed),
    variants: {
      easy: { word_length: 3, max_turns: 10 },
      hard: { word_length: 7, max_turns: 20 },
      random: { random: true },
    },
  });
}
