/**
 * Wordle: find a secret word from the basic list with green/yellow/grey letter feedback. GEM's rewards:
 * each position that turns green for the first time scores 0.5 / word_length, and guessing the word adds
 * 0.5, so a win totals 1.0 and the turn limit keeps whatever greens were found.
 *
 * `only_real_words`: GEM accepts the option but never checks it (any letter string of the right length
 * counts). We honour it, checking guesses against the large dictionary, and default it to false so that
 * GEM's registered ids keep GEM's behaviour.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';
import { loadWords, wordsOfLength } from './words.ts';

export const WordleOptions = z
  .object({
    word_length: z.number().int().min(2).max(12).default(5),
    only_real_words: z.boolean().default(false),
    max_turns: z.number().int().positive().default(20),
    /** `-random` draws a length in 3..5 at every reset, with 5 turns per letter. */
    random: z.boolean().default(false),
  })
  .strict();
export type WordleOptions = z.infer<typeof WordleOptions>;

interface State {
  length: number;
  maxTurns: number;
  /** Upper case. */
  secret: string;
  turn: number;
  guesses: string[];
  /** Positions already found green (each pays once). */
  green: boolean[];
}

const SUFFIX = 'Enter your guess.';

export type LetterMark = 'G' | 'Y' | 'X';

/** G = right letter, right place; Y = in the word elsewhere (each secret letter used once); X = absent. */
export function markGuess(secret: string, guess: string): LetterMark[] {
  const marks: LetterMark[] = new Array(secret.length).fill('X');
  const left = new Map<string, number>();
  for (let i = 0; i < secret.length; i++) {
    if (guess[i] === secret[i]) marks[i] = 'G';
    else left.set(secret[i], (left.get(secret[i]) ?? 0) + 1);
  }
  for (let i = 0; i < secret.length; i++) {
    const n = left.get(guess[i]) ?? 0;
    if (marks[i] !== 'G' && n > 0) {
      marks[i] = 'Y';
      left.set(guess[i], n - 1);
    }
  }
  return marks;
}

export class Wordle extends BaseEnv<State> {
  constructor(readonly options: WordleOptions, seed?: number) {
    super(seed);
    wordsOfLength('en-basic', options.random ? 3 : options.word_length);
  }

  protected clone(): Wordle {
    return new Wordle(this.options);
  }

  protected newEpisode(): ResetResult {
    let { word_length: length, max_turns: maxTurns } = this.options;
    if (this.options.random) {
      length = this.rng.int(3, 5);
      maxTurns = 5 * length;
    }
    const secret = this.rng.choice(wordsOfLength('en-basic', length)).toUpperCase();
    this.state = { length, maxTurns, secret, turn: 0, guesses: [], green: new Array(length).fill(false) };
    const observation =
      `You are playing Wordle. Find the secret ${length}-letter word within ${maxTurns} turns.\n` +
      `After each guess I mark every letter of it:\n` +
      `  G (green): the letter is in the word, in this position;\n` +
      `  Y (yellow): the letter is in the word, but in another position;\n` +
      `  X (grey): the letter is not in the word (or not as many times as you used it).\n` +
      (this.options.only_real_words ? 'Only real English words are accepted as guesses.\n' : '') +
      `Put your guess inside \\boxed{}, for example ${this.sampleRandomAction()}. Your guesses and their ` +
      `marks will be listed below as you play; use them to find the word before your turns run out.`;
    return { observation, info: { suffix: SUFFIX } };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const info = { suffix: SUFFIX };
    const m = lastBoxedMatch(action, /^[a-zA-Z]+(?:\s+[a-zA-Z]+)*$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, you did not give a guess in the required format: a word of letters inside \\boxed{}.`,
        s.turn === s.maxTurns,
        info,
      );
    }
    const guess = m[0].replace(/\s+/g, '').toUpperCase();
    let observation: string;
    let reward: number = GameReward.invalidAction;
    if (guess.length !== s.length) {
      observation = `At turn ${s.turn}, you guessed ${guess}, which has ${guess.length} letters, but the secret word has ${s.length}.`;
    } else if (s.guesses.includes(guess)) {
      observation = `At turn ${s.turn}, you guessed ${guess}, which you have already tried.`;
    } else if (this.options.only_real_words && !isDictionaryWord(guess)) {
      observation = `At turn ${s.turn}, you guessed ${guess}, which is not an English word in my dictionary.`;
    } else {
      s.guesses.push(guess);
      const marks = markGuess(s.secret, guess);
      reward = 0;
      marks.forEach((mark, i) => {
        if (mark === 'G' && !s.green[i]) {
          s.green[i] = true;
          reward += 0.5 / s.length;
        }
      });
      if (guess === s.secret) {
        return {
          observation: `Congratulations! You found the secret word ${s.secret} in ${s.turn} turns.`,
          reward: reward + GameReward.success * 0.5,
          terminated: true,
          truncated: false,
          info,
        };
      }
      observation = `At turn ${s.turn}, you guessed ${guess}.\nFeedback:\n${guess.split('').join(' ')}\n${marks.join(' ')}`;
    }
    if (s.turn >= s.maxTurns) return turnLimitStep(reward, info);
    return { observation, reward, terminated: false, truncated: false, info };
  }

  sampleRandomAction(): string {
    const length = this.state?.length ?? (this.options.random ? 5 : this.options.word_length);
    return `\\boxed{${this.actionRng.choice(wordsOfLength('en-basic', length)).toUpperCase()}}`;
  }
}

let dictionary: Set<string> | undefined;
function isDictionaryWord(upper: string): boolean {
  dictionary ??= new Set(loadWords('en'));
  return dictionary.has(upper.toLowerCase());
}

export function registerWordle(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:Wordle-v0',
    description: 'Find a secret word from green/yellow/grey letter feedback.',
    schema: WordleOptions,
    create: (o, _spec, seed) => new Wordle(o, seed),
    variants: {
      easy: { word_length: 3, max_turns: 15 },
      hard: { word_length: 5, max_turns: 25 },
      random: { random: true },
      // Legacy id from GEM's README; GEM later renamed it to -hard, so it keeps the hard preset.
      '': { word_length: 5, max_turns: 25 },
    },
  });
}
