/**
 * LampChain: a multi-turn game with a dense, per-turn reward, built to measure turn-level credit
 * assignment (the algorithms benchmark, docs/benchmark.md). Every turn one of `num_lamps` lamps is
 * lit; the agent presses one with `\boxed{k}`. That turn pays at once: 1 for the lit lamp, 0.5 for
 * the lit lamp right after a miss (the chain was broken), 0 for a wrong lamp. So each turn is an
 * independent small decision, and one turn's outcome depends on the turn before it. The lamp
 * sequence is fixed by the reset seed, whatever is pressed: episodes replayed from one seed see the
 * same lamps. The best return is `num_turns` (every lamp pressed).
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { formatErrorStep, lastBoxedMatch } from './common.ts';

export const LampChainOptions = z
  .object({
    num_lamps: z.number().int().min(2).max(9).default(3),
    num_turns: z.number().int().positive().default(5),
  })
  .strict();
export type LampChainOptions = z.infer<typeof LampChainOptions>;

export const LampChainReward = { hit: 1, hitAfterMiss: 0.5, miss: 0 } as const;

interface State {
  lamps: number[]; // the lit lamp of every turn, drawn at reset
  turn: number; // turns played
  lastHit: boolean; // whether the previous press was the lit lamp (true before the first turn)
  hits: number;
}

export class LampChain extends BaseEnv<State> {
  constructor(
    readonly options: LampChainOptions,
    seed?: number,
  ) {
    super(seed);
  }

  protected clone(): LampChain {
    return new LampChain(this.options);
  }

  protected newEpisode(): ResetResult {
    const { num_lamps: k, num_turns: n } = this.options;
    const lamps = Array.from({ length: n }, () => this.rng.int(1, k));
    this.state = { lamps, turn: 0, lastHit: true, hits: 0 };
    const observation =
      `You are playing Lamp Chain: ${k} lamps, numbered 1 to ${k}, and ${n} turns. Each turn one lamp ` +
      `is lit; press it by writing its number inside \\boxed{}, for example \\boxed{1}. The lit lamp ` +
      `scores 1, or 0.5 right after a miss; any other lamp scores 0.\n` +
      this.prompt();
    return { observation, info: {} };
  }

  private prompt(): string {
    return `Turn ${this.state.turn + 1}: lamp ${this.state.lamps[this.state.turn]} is lit.`;
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    const lit = s.lamps[s.turn];
    s.turn += 1;
    const last = s.turn >= s.lamps.length;
    const m = lastBoxedMatch(action, /^(\d+)$/);
    if (!m) {
      return formatErrorStep(`Turn ${s.turn}: no lamp pressed (write one number inside \\boxed{}).`, last, {});
    }
    const hit = Number(m[1]) === lit;
    const reward = hit ? (s.lastHit ? LampChainReward.hit : LampChainReward.hitAfterMiss) : LampChainReward.miss;
    s.lastHit = hit;
    if (hit) s.hits += 1;
    const feedback = hit ? 'Hit.' : `Miss, lamp ${lit} was lit.`;
    if (last) {
      const observation = `${feedback} Game over: ${s.hits} of ${s.lamps.length} lamps pressed.`;
      return { observation, reward, terminated: true, truncated: false, info: { hits: s.hits } };
    }
    return { observation: `${feedback} ${this.prompt()}`, reward, terminated: false, truncated: false, info: {} };
  }

  sampleRandomAction(): string {
    return `\\boxed{${this.actionRng.int(1, this.options.num_lamps)}}`;
  }
}

export function registerLampChain(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:LampChain-v0',
    description: 'Press the lit lamp every turn: a dense per-turn reward, each turn depending on the one before.',
    schema: LampChainOptions,
    create: (o, _spec, seed) => new LampChain(o, seed),
    variants: {
      '': { num_lamps: 3, num_turns: 5 },
      hard: { num_lamps: 4, num_turns: 8 },
    },
  });
}
