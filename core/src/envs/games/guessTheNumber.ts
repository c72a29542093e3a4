/**
 * GuessTheNumber: find a hidden integer in a range with higher/lower hints. A correct guess scores
 * 1.0; at the turn limit an in-range last guess earns 1 − |guess − target| / (max − min).
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';

export const GuessTheNumberOptions = z
  .object({
    min_number: z.number().int().default(1),
    max_number: z.number().int().default(20),
    max_turns: z.number().int().positive().default(20),
    /** `-random` variants redraw the range and budget at every reset. */
    random: z.boolean().default(false),
  })
  .strict()
  .refine((o) => o.max_number > o.min_number, { message: 'max_number must be greater than min_number', path: ['max_number'] });
export type GuessTheNumberOptions = z.infer<typeof GuessTheNumberOptions>;

interface State {
  min: number;
  max: number;
  maxTurns: number;
  target: number;
  turn: number;
  guesses: number[];
}

const SUFFIX = 'Enter your next guess.';

export class GuessTheNumber extends BaseEnv<State> {
  constructor(readonly options: GuessTheNumberOptions, seed?: number) {
    super(seed);
  }

  protected clone(): GuessTheNumber {
    return new GuessTheNumber(this.options);
  }

  protected newEpisode(): ResetResult {
    let { min_number: min, max_number: max, max_turns: maxTurns } = this.options;
    if (this.options.random) {
      min = this.rng.int(1, 10);
      max = this.rng.int(min + 5, min + 50);
      maxTurns = Math.ceil(Math.sqrt(max - min)) + 1;
    }
    this.state = { min, max, maxTurns, target: this.rng.int(min, max), turn: 0, guesses: [] };
    const observation =
      `You are playing Guess The Number. I am thinking of a whole number between ${min} and ${max}, ` +
      `inclusive, and you have ${maxTurns} turns to find it. After each guess I will tell you whether ` +
      `the number is higher or lower than your guess. Put your guess inside \\boxed{}, for example ` +
      `${this.sampleRandomAction()}; only the number in the box counts. Your earlier guesses and my ` +
      `answers will be shown below as the game goes on.\nEnter your first guess to start the game.`;
    return { observation, info: { suffix: SUFFIX } };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const atLimit = s.turn >= s.maxTurns;
    const info = { suffix: SUFFIX };
    const m = lastBoxedMatch(action, /^(\d+)$/);
    const guess = m ? Number(m[1]) : undefined;
    // GEM treats a boxed 0 as unparsable (a falsy check); we keep that rule for parity.
    if (guess === undefined || guess === 0) {
      return formatErrorStep(
        `At turn ${s.turn}, you did not give a guess in the required format: one whole number inside \\boxed{}.`,
        atLimit,
        info,
      );
    }
    if (guess === s.target) {
      return {
        observation: `Congratulations! You guessed the number ${s.target} at turn ${s.turn}.`,
        reward: GameReward.success,
        terminated: true,
        truncated: false,
        info,
      };
    }
    const inRange = guess >= s.min && guess <= s.max;
    const repeated = s.guesses.includes(guess);
    s.guesses.push(guess);
    if (atLimit) {
      const reward = inRange ? 1 - Math.abs(guess - s.target) / (s.max - s.min) : GameReward.fail;
      return turnLimitStep(reward, info);
    }
    let observation: string;
    if (!inRange) {
      observation = `At turn ${s.turn}, you guessed ${guess}, which lies outside the range ${s.min}–${s.max}.`;
    } else if (repeated) {
      observation = `At turn ${s.turn}, you guessed ${guess}, which you have already guessed before.`;
    } else {
      const dir = guess > s.target ? 'lower' : 'higher';
      observation = `At turn ${s.turn}, you guessed ${guess}, and the target number is ${dir} than ${guess}.`;
    }
    const reward = inRange && !repeated ? GameReward.internalStep : GameReward.invalidAction;
    return { observation, reward, terminated: false, truncated: false, info };
  }

  sampleRandomAction(): string {
    const s = this.state;
    const [lo, hi] = s ? [s.min, s.max] : [this.options.min_number, this.options.max_number];
    return `\\boxed{${this.actionRng.int(lo, hi)}}`;
  }
}

export function registerGuessTheNumber(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:GuessTheNumber-v0',
    description: 'Guess a hidden number with higher/lower hints.',
    schema: GuessTheNumberOptions,
    create: (o, _spec, seed) => new GuessTheNumber(o, seed),
    variants: {
      easy: { min_number: 1, max_number: 10, max_turns: 4 },
      hard: { min_number: 1, max_number: 50, max_turns: 7 },
      random: { random: true },
      // Legacy id that GEM's own training examples still use (1–20, 10 turns).
      '': { min_number: 1, max_number: 20, max_turns: 10 },
    },
  });
}
