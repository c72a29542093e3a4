/**
 * PickLargest: a single-turn task with prompts of mixed difficulty, built for the algorithms
 * benchmark (docs/benchmark.md). Each reset shows between `min_numbers` and `max_numbers` distinct
 * numbers from 1 to `max_value`; the one answer `\boxed{n}` pays 1 when n is the largest, else 0.
 * Guessing among the shown numbers succeeds 1 time in k, so prompts differ in how hard they are
 * (1/2 down to 1/6 by default): the case where a per-prompt baseline (GRPO's group) and a batch
 * baseline should part. The numbers are fixed by the reset seed.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { formatErrorStep, lastBoxedMatch } from './common.ts';

export const PickLargestOptions = z
  .object({
    min_numbers: z.number().int().min(2).default(2),
    max_numbers: z.number().int().min(2).default(6),
    max_value: z.number().int().min(2).max(99).default(9),
  })
  .strict()
  .refine((o) => o.min_numbers <= o.max_numbers && o.max_numbers <= o.max_value, {
    message: 'need min_numbers <= max_numbers <= max_value',
    path: ['max_numbers'],
  });
export type PickLargestOptions = z.infer<typeof PickLargestOptions>;

interface State {
  numbers: number[];
}

export class PickLargest extends BaseEnv<State> {
  constructor(
    readonly options: PickLargestOptions,
    seed?: number,
  ) {
    super(seed);
  }

  protected clone(): PickLargest {
    return new PickLargest(this.options);
  }

  protected newEpisode(): ResetResult {
    const { min_numbers, max_numbers, max_value } = this.options;
    const values = Array.from({ length: max_value }, (_, i) => i + 1);
    const numbers = this.rng.sample(values, this.rng.int(min_numbers, max_numbers));
    this.state = { numbers };
    // The numbers come last: a model that reads a window from the end of the prompt sees them.
    const observation =
      'Write the largest of these numbers inside \\boxed{}, for example \\boxed{1}.\n' + `Numbers: ${numbers.join(' ')}`;
    return { observation, info: { count: numbers.length } };
  }

  protected applyAction(action: string): StepResult {
    const m = lastBoxedMatch(action, /^(\d+)$/);
    if (!m) return formatErrorStep('No number given (write one number inside \\boxed{}).', true, {});
    const largest = Math.max(...this.state.numbers);
    const right = Number(m[1]) === largest;
    const observation = right ? 'Right.' : `Wrong, the largest is ${largest}.`;
    return { observation, reward: right ? 1 : 0, terminated: true, truncated: false, info: { largest, count: this.state.numbers.length } };
  }

  sampleRandomAction(): string {
    return `\\boxed{${this.actionRng.int(1, this.options.max_value)}}`;
  }
}

export function registerPickLargest(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:PickLargest-v0',
    description: 'Single turn: name the largest of 2 to 6 shown numbers; prompts differ in difficulty.',
    schema: PickLargestOptions,
    create: (o, _spec, seed) => new PickLargest(o, seed),
    variants: { '': { min_numbers: 2, max_numbers: 6, max_value: 9 } },
  });
}
