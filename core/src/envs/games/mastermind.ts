/**
 * Mastermind: crack a secret code of digits 1..K with black/white peg feedback. Rewards follow GEM's
 * milestones: whenever a guess earns more black pegs than any guess before, it scores
 * (black − best) / code_length, so cracking the code brings the episode's total to 1.0 and the total at
 * the turn limit is the best fraction of pegs ever placed. GEM gives no suffix at reset; we give the
 * same suffix as every step so the observation wrapper's prompt ends the same way each turn.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';

export const MastermindOptions = z
  .object({
    code_length: z.number().int().positive().default(4),
    num_numbers: z.number().int().positive().default(6),
    duplicate_numbers: z.boolean().default(false),
    max_turns: z.number().int().positive().default(20),
    /** `-random` draws (code_length, num_numbers, max_turns) from GEM's presets at every reset. */
    random: z.boolean().default(false),
  })
  .strict()
  .refine((o) => o.duplicate_numbers || o.num_numbers >= o.code_length, {
    message: 'without duplicate_numbers, num_numbers must be at least code_length',
    path: ['num_numbers'],
  });
export type MastermindOptions = z.infer<typeof MastermindOptions>;

/** GEM's `-random` presets as (code length, digits, turns). */
const RANDOM_PRESETS = [
  [2, 4, 10],
  [4, 6, 20],
  [4, 8, 30],
] as const;

interface State {
  codeLength: number;
  numNumbers: number;
  maxTurns: number;
  code: number[];
  turn: number;
  /** Guesses already scored, as "1 2 3" keys. */
  guesses: string[];
  /** Most black pegs earned by any guess so far (the reward milestone). */
  best: number;
}

const SUFFIX = 'Enter your guess.';

/** Python's list repr, which GEM's feedback uses: [1, 2, 3]. */
const listText = (xs: readonly number[]) => `[${xs.join(', ')}]`;

/** Black = right digit, right place; white = right digit, wrong place (each code digit counted once). */
export function scoreGuess(code: readonly number[], guess: readonly number[]): { black: number; white: number } {
  let black = 0;
  const codeLeft = new Map<number, number>();
  const guessLeft: number[] = [];
  for (let i = 0; i < code.length; i++) {
    if (guess[i] === code[i]) black++;
    else {
      codeLeft.set(code[i], (codeLeft.get(code[i]) ?? 0) + 1);
      guessLeft.push(guess[i]);
    }
  }
  let white = 0;
  for (const g of guessLeft) {
    const n = codeLeft.get(g) ?? 0;
    if (n > 0) {
      white++;
      codeLeft.set(g, n - 1);
    }
  }
  return { black, white };
}

export class Mastermind extends BaseEnv<State> {
  constructor(readonly options: MastermindOptions, seed?: number) {
    super(seed);
  }

  protected clone(): Mastermind {
    return new Mastermind(this.options);
  }

  protected newEpisode(): ResetResult {
    let { code_length: codeLength, num_numbers: numNumbers, max_turns: maxTurns } = this.options;
    if (this.options.random) [codeLength, numNumbers, maxTurns] = this.rng.choice(RANDOM_PRESETS);
    const digits = Array.from({ length: numNumbers }, (_, i) => i + 1);
    const code = this.options.duplicate_numbers
      ? Array.from({ length: codeLength }, () => this.rng.choice(digits))
      : this.rng.sample(digits, codeLength);
    this.state = { codeLength, numNumbers, maxTurns, code, turn: 0, guesses: [], best: 0 };
    const observation =
      `You are playing Mastermind. A secret code of ${codeLength} digits is hidden from you; crack it ` +
      `within ${maxTurns} turns. Each digit is between 1 and ${numNumbers}, and a digit ` +
      `${this.options.duplicate_numbers ? 'may appear more than once' : 'never appears twice'} in the code.\n` +
      `After every guess I score it with pegs: a black peg for each digit that is correct and in the ` +
      `correct position, a white peg for each correct digit in the wrong position.\n` +
      `Write your guess as digits separated by spaces inside \\boxed{}, for example ` +
      `${this.sampleRandomAction()}. Your guesses and their scores will be listed below as you play; ` +
      `use them to find the code before your turns run out.\nEnter your first guess to start the game.`;
    return { observation, info: { suffix: SUFFIX } };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const info = { suffix: SUFFIX };
    const m = lastBoxedMatch(action, /^\d+(?:\s+\d+)*$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, you did not give a guess in the required format: digits separated by spaces inside \\boxed{}.`,
        s.turn === s.maxTurns,
        info,
      );
    }
    const guess = m[0].split(/\s+/).map(Number);
    let observation: string;
    let reward: number = GameReward.invalidAction;
    if (guess.length !== s.codeLength) {
      observation = `At turn ${s.turn}, you guessed ${listText(guess)}, which has ${guess.length} digits, but the code has ${s.codeLength}.`;
    } else if (guess.some((d) => d < 1 || d > s.numNumbers)) {
      observation = `At turn ${s.turn}, you guessed ${listText(guess)}, which uses digits outside 1 to ${s.numNumbers}.`;
    } else if (s.guesses.includes(guess.join(' '))) {
      observation = `At turn ${s.turn}, you guessed ${listText(guess)}, which you have already tried.`;
    } else {
      s.guesses.push(guess.join(' '));
      const { black, white } = scoreGuess(s.code, guess);
      reward = black > s.best ? (black - s.best) / s.codeLength : GameReward.internalStep;
      s.best = Math.max(s.best, black);
      if (black === s.codeLength) {
        return {
          observation: `Congratulations! You cracked the code ${listText(s.code)} in ${s.turn} turns.`,
          reward,
          terminated: true,
          truncated: false,
          info,
        };
      }
      observation = `At turn ${s.turn}, you guessed ${listText(guess)}. It earns ${black} black peg(s) and ${white} white peg(s).`;
    }
    if (s.turn >= s.maxTurns) return turnLimitStep(reward, info);
    return { observation, reward, terminated: false, truncated: false, info };
  }

  sampleRandomAction(): string {
    const length = this.state?.codeLength ?? this.options.code_length;
    const n = this.state?.numNumbers ?? this.options.num_numbers;
    const digits = Array.from({ length: n }, (_, i) => i + 1);
    const guess =
      n >= length ? this.actionRng.sample(digits, length) : Array.from({ length }, () => this.actionRng.choice(digits));
    return `\\boxed{${guess.join(' ')}}`;
  }
}

export function registerMastermind(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:Mastermind-v0',
    description: 'Crack a secret digit code from black/white peg feedback.',
    schema: MastermindOptions,
    create: (o, _spec, seed) => new Mastermind(o, seed),
    variants: {
      easy: { code_length: 2, num_numbers: 6, max_turns: 10 },
      hard: { code_length: 4, num_numbers: 8, max_turns: 30 },
      random: { random: true },
      // Legacy id from GEM's README: 4 digits of 1–6, 20 turns.
      '': { code_length: 4, num_numbers: 6, max_turns: 20 },
    },
  });
}
