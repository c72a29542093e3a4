/**
 * FifteenPuzzle (any n×n sliding puzzle): slide tiles into ascending order with the blank in the
 * bottom-right corner. Only solvable boards are dealt. Solving scores 1.0; at the turn limit the
 * reward is the fraction of cells already in their goal place.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { Rng } from '../../core/rng.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, turnLimitStep } from './common.ts';
import { DELTA, DIRECTIONS, directionFormatError, parseDirection } from './gridMoves.ts';
import type { Direction } from './gridMoves.ts';

export const FifteenPuzzleOptions = z
  .object({
    max_turns: z.number().int().positive().default(20),
    num_rows: z.number().int().min(2).max(10).default(2),
    /** monte_carlo: random blank moves away from the goal; pure_random: a shuffle with its parity fixed. */
    init_algo: z.enum(['monte_carlo', 'pure_random']).default('monte_carlo'),
    mc_rand_moves: z.number().int().positive().default(100),
    /** `-random` variants draw one of GEM's presets at every reset (GEM's own `-random` crashes). */
    random: z.boolean().default(false),
  })
  .strict();
export type FifteenPuzzleOptions = z.infer<typeof FifteenPuzzleOptions>;

/** GEM's presets as (rows, max_turns). */
const PRESETS = [
  { rows: 2, maxTurns: 10 },
  { rows: 3, maxTurns: 20 },
  { rows: 4, maxTurns: 50 },
] as const;

/** Tiles 1..n²−1 in row-major order, then the blank (0). */
export function goalBoard(n: number): number[] {
  return Array.from({ length: n * n }, (_, i) => (i + 1) % (n * n));
}

/**
 * A board is reachable from the goal iff the parity of its permutation (blank included) equals the
 * parity of the blank's Manhattan distance from its goal corner: every slide is one transposition
 * and moves the blank by one cell.
 */
export function isSolvableBoard(board: readonly number[], n: number): boolean {
  const seen = new Uint8Array(board.length);
  let transpositions = 0;
  // Cycle decomposition: a cycle of length L is L−1 transpositions. Target index of value v is (v−1) mod n².
  for (let i = 0; i < board.length; i++) {
    if (seen[i]) continue;
    let len = 0;
    for (let j = i; !seen[j]; j = (board[j] + board.length - 1) % board.length) {
      seen[j] = 1;
      len++;
    }
    transpositions += len - 1;
  }
  const blank = board.indexOf(0);
  const distance = n - 1 - Math.floor(blank / n) + (n - 1 - (blank % n));
  return (transpositions + distance) % 2 === 0;
}

/** The blank's index after sliding the tile that moves `dir` into it, or −1 when no tile can. */
function blankAfter(board: readonly number[], n: number, dir: Direction): number {
  const blank = board.indexOf(0);
  // The tile that moves `dir` sits on the opposite side of the blank.
  const r = Math.floor(blank / n) - DELTA[dir][0];
  const c = (blank % n) - DELTA[dir][1];
  return r >= 0 && r < n && c >= 0 && c < n ? r * n + c : -1;
}

function slide(board: number[], n: number, dir: Direction): boolean {
  const from = blankAfter(board, n, dir);
  if (from < 0) return false;
  const blank = board.indexOf(0);
  board[blank] = board[from];
  board[from] = 0;
  return true;
}

const OPPOSITE: Record<Direction, Direction> = { up: 'down', down: 'up', left: 'right', right: 'left' };

function sameBoard(a: readonly number[], b: readonly number[]): boolean {
  return a.every((v, i) => v === b[i]);
}

/** `moves` random legal slides from the goal, never undoing the previous one. */
function monteCarloBoard(n: number, moves: number, rng: Rng): number[] {
  const board = goalBoard(n);
  let previous: Direction | undefined;
  for (let k = 0; k < moves; k++) {
    const legal = DIRECTIONS.filter((d) => d !== (previous && OPPOSITE[previous]) && blankAfter(board, n, d) >= 0);
    previous = rng.choice(legal);
    slide(board, n, previous);
  }
  return board;
}

/** A uniform shuffle; if it is unsolvable, swapping two tiles flips its parity and makes it solvable. */
function pureRandomBoard(n: number, rng: Rng): number[] {
  const board = rng.shuffle(goalBoard(n));
  if (!isSolvableBoard(board, n)) {
    const [a, b] = board.map((v, i) => (v === 0 ? -1 : i)).filter((i) => i >= 0);
    [board[a], board[b]] = [board[b], board[a]];
  }
  return board;
}

interface State {
  n: number;
  maxTurns: number;
  board: number[];
  turn: number;
}

export class FifteenPuzzle extends BaseEnv<State> {
  constructor(readonly options: FifteenPuzzleOptions, seed?: number) {
    super(seed);
  }

  protected clone(): FifteenPuzzle {
    return new FifteenPuzzle(this.options);
  }

  protected newEpisode(): ResetResult {
    const { rows: n, maxTurns } = this.options.random
      ? this.rng.choice(PRESETS)
      : { rows: this.options.num_rows, maxTurns: this.options.max_turns };
    const goal = goalBoard(n);
    let board: number[];
    // A walk can come back to the goal (a 2×2 walk often does): deal again rather than start solved.
    do {
      board =
        this.options.init_algo === 'pure_random'
          ? pureRandomBoard(n, this.rng)
          : monteCarloBoard(n, this.options.mc_rand_moves, this.rng);
    } while (sameBoard(board, goal));
    this.state = { n, maxTurns, board, turn: 0 };
    const observation =
      `You are playing the ${n * n - 1}-Puzzle. The board has ${n} rows and ${n} columns holding the tiles ` +
      `1 to ${n * n - 1} and one empty space, shown as "__". Slide tiles into the empty space until the ` +
      `tiles read 1 to ${n * n - 1} in order, row by row from the top left, with the empty space in the ` +
      `bottom-right corner.\n` +
      `Each move names the direction a tile slides into the empty space: "up" moves the tile below the ` +
      `space up, "down" moves the tile above it down, "left" moves the tile to its right leftwards, and ` +
      `"right" moves the tile to its left rightwards. A direction with no tile to slide is an invalid move.\n` +
      `Answer with one lowercase direction inside \\boxed{}, for example ${this.sampleRandomAction()}. ` +
      `You have ${maxTurns} turns. Your earlier moves will be shown below.`;
    return { observation, info: this.info() };
  }

  private info(): { suffix: string } {
    return { suffix: `Current board:\n${renderFifteen(this.state.board, this.state.n)}\nEnter your move.` };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const atLimit = s.turn >= s.maxTurns;
    // GEM reads only lowercase directions here.
    const dir = parseDirection(action, true);
    if (!dir) {
      return directionFormatError(s.turn, atLimit, this.info());
    }
    const moved = slide(s.board, s.n, dir);
    if (moved && sameBoard(s.board, goalBoard(s.n))) {
      return {
        observation: `Congratulations! You solved the puzzle at turn ${s.turn}.`,
        reward: GameReward.success,
        terminated: true,
        truncated: false,
        info: this.info(),
      };
    }
    const reward = moved ? GameReward.internalStep : GameReward.invalidAction;
    if (atLimit) {
      const goal = goalBoard(s.n);
      const inPlace = s.board.filter((v, i) => v === goal[i]).length / goal.length;
      return turnLimitStep(reward + inPlace, this.info());
    }
    const observation = moved
      ? `At turn ${s.turn}, you moved a tile ${dir}.`
      : `At turn ${s.turn}, you chose ${dir}, but no tile can slide ${dir} into the empty space.`;
    return { observation, reward, terminated: false, truncated: false, info: this.info() };
  }

  sampleRandomAction(): string {
    return `\\boxed{${this.actionRng.choice(DIRECTIONS)}}`;
  }
}

/** Tiles right-aligned in two characters, the blank as "__", one row per line. */
export function renderFifteen(board: readonly number[], n: number): string {
  const width = Math.max(2, String(n * n - 1).length);
  const rows: string[] = [];
  for (let r = 0; r < n; r++) {
    rows.push(
      board
        .slice(r * n, (r + 1) * n)
        .map((v) => (v === 0 ? '_'.repeat(width) : String(v).padStart(width)))
        .join(' '),
    );
  }
  return rows.join('\n');
}

export function registerFifteenPuzzle(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:FifteenPuzzle-v0',
    description: 'Slide numbered tiles into order on a 2×2 to 4×4 board.',
    schema: FifteenPuzzleOptions,
    create: (o, _spec, seed) => new FifteenPuzzle(o, seed),
    variants: {
      random: { random: true },
      easy: { num_rows: 2, max_turns: 10 },
      hard: { num_rows: 4, max_turns: 50 },
    },
  });
}
