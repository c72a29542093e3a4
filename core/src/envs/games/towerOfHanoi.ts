/**
 * Tower of Hanoi (GEM's id spells it `TowerofHanoi`): move every disk from peg A to peg C, one top disk
 * at a time, never a larger disk onto a smaller one. Solving scores 1.0; at the turn limit the final
 * reward is the share of disks already on C. Moving a disk onto its own peg is legal (a no-op), as in GEM.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';

export const TowerOfHanoiOptions = z
  .object({
    num_disks: z.number().int().min(1).max(20).default(3),
    max_turns: z.number().int().positive().default(100),
    /** `-random` draws (num_disks, max_turns) from GEM's presets at every reset. */
    random: z.boolean().default(false),
  })
  .strict();
export type TowerOfHanoiOptions = z.infer<typeof TowerOfHanoiOptions>;

/** GEM's `-random` presets as (disks, turns). */
const RANDOM_PRESETS = [
  [3, 10],
  [4, 20],
  [5, 35],
] as const;

const PEGS = ['A', 'B', 'C'] as const;
type Peg = (typeof PEGS)[number];

interface State {
  numDisks: number;
  maxTurns: number;
  /** Disk sizes bottom to top. */
  pegs: Record<Peg, number[]>;
  turn: number;
}

export class TowerOfHanoi extends BaseEnv<State> {
  constructor(readonly options: TowerOfHanoiOptions, seed?: number) {
    super(seed);
  }

  protected clone(): TowerOfHanoi {
    return new TowerOfHanoi(this.options);
  }

  protected newEpisode(): ResetResult {
    let { num_disks: numDisks, max_turns: maxTurns } = this.options;
    if (this.options.random) [numDisks, maxTurns] = this.rng.choice(RANDOM_PRESETS);
    const tower = Array.from({ length: numDisks }, (_, i) => numDisks - i);
    this.state = { numDisks, maxTurns, pegs: { A: tower, B: [], C: [] }, turn: 0 };
    const observation =
      `You are playing Tower of Hanoi with ${numDisks} disks, numbered by size (1 is the smallest). ` +
      `They start stacked on peg A; move them all to peg C within ${maxTurns} turns.\n` +
      `A move takes the top disk of one peg and puts it on another: write the source peg and the target ` +
      `peg inside \\boxed{}, e.g. \\boxed{A C}. A disk may never rest on a smaller disk.\n` +
      `Your moves will be listed below as you play.`;
    return { observation, info: { suffix: this.suffix() } };
  }

  /** Each peg as a bottom-to-top list, e.g. "A: [3, 2, 1]". */
  private suffix(): string {
    const board = PEGS.map((p) => `${p}: [${this.state.pegs[p].join(', ')}]`).join('\n');
    return `Here are the pegs now (bottom to top):\n${board}\nEnter your move.`;
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    // GEM's pattern: two peg letters, optionally separated by spaces and one comma.
    const m = lastBoxedMatch(action, /^([ABCabc])\s*,?\s*([ABCabc])$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, you did not give a move in the required format, such as \\boxed{A C}.`,
        s.turn === s.maxTurns,
        { suffix: this.suffix() },
      );
    }
    const from = m[1].toUpperCase() as Peg;
    const to = m[2].toUpperCase() as Peg;
    const [src, dst] = [s.pegs[from], s.pegs[to]];
    let observation: string;
    let reward: number = GameReward.invalidAction;
    if (src.length === 0) {
      observation = `At turn ${s.turn}, you tried to move a disk from peg ${from}, which is empty.`;
    } else if (dst.length > 0 && src[src.length - 1] > dst[dst.length - 1]) {
      observation =
        `At turn ${s.turn}, you tried to put disk ${src[src.length - 1]} from peg ${from} onto the smaller ` +
        `disk ${dst[dst.length - 1]} on peg ${to}.`;
    } else {
      const disk = src.pop()!;
      dst.push(disk);
      reward = GameReward.internalStep;
      if (s.pegs.C.length === s.numDisks) {
        return {
          observation: `Congratulations! You moved the whole tower to peg C in ${s.turn} turns.`,
          reward: GameReward.success,
          terminated: true,
          truncated: false,
          info: { suffix: this.suffix() },
        };
      }
      observation = `At turn ${s.turn}, you moved disk ${disk} from peg ${from} to peg ${to}.`;
    }
    const info = { suffix: this.suffix() };
    if (s.turn >= s.maxTurns) return turnLimitStep(s.pegs.C.length / s.numDisks, info);
    return { observation, reward, terminated: false, truncated: false, info };
  }

  /** GEM has none; ours picks a legal move when there is one (there always is), else any pair. */
  sampleRandomAction(): string {
    const pegs = this.state?.pegs;
    const moves: string[] = [];
    for (const a of PEGS) {
      for (const b of PEGS) {
        if (a === b || !pegs) continue;
        const [src, dst] = [pegs[a], pegs[b]];
        if (src.length && (!dst.length || src[src.length - 1] < dst[dst.length - 1])) moves.push(`${a} ${b}`);
      }
    }
    return `\\boxed{${moves.length ? this.actionRng.choice(moves) : 'A C'}}`;
  }
}

export function registerTowerOfHanoi(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:TowerofHanoi-v0',
    description: 'Move a tower of disks from peg A to peg C, never a larger disk onto a smaller one.',
    schema: TowerOfHanoiOptions,
    create: (o, _spec, seed) => new TowerOfHanoi(o, seed),
    variants: {
      easy: { num_disks: 3, max_turns: 10 },
      hard: { num_disks: 5, max_turns: 35 },
      random: { random: true },
    },
  });
}
