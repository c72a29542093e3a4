/**
 * Game2048: slide the board so equal tiles merge, until a tile reaches the target. Every rise of the
 * largest tile earns its share of the way from the starting tile to the target on a log2 scale, so
 * reaching the target sums to 1.0. A move that changes nothing is invalid (0, and no new tile).
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { Rng } from '../../core/rng.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, turnLimitStep } from './common.ts';
import { DIRECTIONS, directionFormatError, parseDirection } from './gridMoves.ts';
import type { Direction } from './gridMoves.ts';

const isPowerOfTwo = (v: number) => Number.isInteger(Math.log2(v));

export const Game2048Options = z
  .object({
    target_tile: z
      .number()
      .int()
      .min(8)
      .refine(isPowerOfTwo, { message: 'target_tile must be a power of two (8, 16, …, 2048, …)' })
      .default(2048),
    max_turns: z.number().int().positive().default(1000),
    board_size: z.number().int().min(2).max(8).default(4),
    /** `-random` variants draw one of GEM's presets at every reset. */
    random: z.boolean().default(false),
  })
  .strict();
export type Game2048Options = z.infer<typeof Game2048Options>;

/** GEM's presets for `-random` as (target, max_turns). */
const PRESETS = [
  { target: 16, maxTurns: 20 },
  { target: 32, maxTurns: 30 },
  { target: 64, maxTurns: 50 },
] as const;

/** Slides one line towards its start; each pair merges at most once per move (standard 2048). */
export function slideLine(line: readonly number[]): number[] {
  const tiles = line.filter((v) => v !== 0);
  const out: number[] = [];
  for (let i = 0; i < tiles.length; i++) {
    if (i + 1 < tiles.length && tiles[i] === tiles[i + 1]) {
      out.push(tiles[i] * 2);
      i++;
    } else {
      out.push(tiles[i]);
    }
  }
  while (out.length < line.length) out.push(0);
  return out;
}

/** The cell indices of each line, ordered from the edge the tiles slide towards. */
function linesFor(dir: Direction, n: number): number[][] {
  const lines: number[][] = [];
  for (let a = 0; a < n; a++) {
    const line: number[] = [];
    for (let b = 0; b < n; b++) {
      if (dir === 'left') line.push(a * n + b);
      else if (dir === 'right') line.push(a * n + (n - 1 - b));
      else if (dir === 'up') line.push(b * n + a);
      else line.push((n - 1 - b) * n + a);
    }
    lines.push(line);
  }
  return lines;
}

/** The board after a move (a new array); equal to the input when the move changes nothing. */
export function moveBoard(board: readonly number[], n: number, dir: Direction): number[] {
  const out = board.slice();
  for (const line of linesFor(dir, n)) {
    const slid = slideLine(line.map((i) => board[i]));
    line.forEach((cell, k) => (out[cell] = slid[k]));
  }
  return out;
}

export function canMove(board: readonly number[], n: number): boolean {
  return DIRECTIONS.some((d) => moveBoard(board, n, d).some((v, i) => v !== board[i]));
}

/** A 2 (nine times in ten) or a 4 on a random empty cell. */
function spawnTile(board: number[], rng: Rng): void {
  const empty = board.map((v, i) => (v === 0 ? i : -1)).filter((i) => i >= 0);
  if (empty.length) board[rng.choice(empty)] = rng.random() < 0.9 ? 2 : 4;
}

interface State {
  n: number;
  target: number;
  maxTurns: number;
  board: number[];
  /** Largest tile so far (capped at the target) and at the start: the reward scale's two ends. */
  best: number;
  start: number;
  turn: number;
}

export class Game2048 extends BaseEnv<State> {
  constructor(readonly options: Game2048Options, seed?: number) {
    super(seed);
  }

  protected clone(): Game2048 {
    return new Game2048(this.options);
  }

  protected newEpisode(): ResetResult {
    const { target, maxTurns } = this.options.random
      ? this.rng.choice(PRESETS)
      : { target: this.options.target_tile, maxTurns: this.options.max_turns };
    const n = this.options.board_size;
    const board = new Array<number>(n * n).fill(0);
    spawnTile(board, this.rng);
    spawnTile(board, this.rng);
    const start = Math.max(...board);
    this.state = { n, target, maxTurns, board, best: start, start, turn: 0 };
    const observation =
      `You are playing 2048 on a ${n}×${n} board. Your goal is to make a tile with the value ${target} ` +
      `within ${maxTurns} turns.\n` +
      `Each move slides every tile as far as it can go in one direction: up, down, left or right. When two ` +
      `tiles with the same number collide they merge into one tile with their sum; a tile merges at most ` +
      `once per move. After every move that changes the board, a new tile (usually a 2, sometimes a 4) ` +
      `appears on a random empty cell. A move that changes nothing is invalid.\n` +
      `Answer with one direction inside \\boxed{}, for example ${this.sampleRandomAction()}.`;
    return { observation, info: this.info() };
  }

  private info(): { suffix: string } {
    return { suffix: `Current board:\n${render2048(this.state.board, this.state.n, this.state.target)}\nEnter your move.` };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const atLimit = s.turn >= s.maxTurns;
    const dir = parseDirection(action);
    if (!dir) {
      return directionFormatError(s.turn, atLimit, this.info());
    }
    const next = moveBoard(s.board, s.n, dir);
    const changed = next.some((v, i) => v !== s.board[i]);
    let reward: number = GameReward.invalidAction;
    let observation = `At turn ${s.turn}, you moved ${dir}, but nothing could slide that way.`;
    if (changed) {
      s.board = next;
      const top = Math.min(Math.max(...next), s.target);
      reward = top > s.best ? (Math.log2(top) - Math.log2(s.best)) / (Math.log2(s.target) - Math.log2(s.start)) : 0;
      s.best = Math.max(s.best, top);
      if (top >= s.target) {
        return {
          observation: `Congratulations! You reached the ${s.target} tile in ${s.turn} turns!`,
          reward,
          terminated: true,
          truncated: false,
          info: this.info(),
        };
      }
      spawnTile(s.board, this.rng);
      if (!canMove(s.board, s.n)) {
        return { observation: 'Game over! No more moves possible.', reward, terminated: true, truncated: false, info: this.info() };
      }
      observation = `At turn ${s.turn}, you moved ${dir}.`;
    }
    if (atLimit) return turnLimitStep(reward, this.info(), `You have reached the maximum number of turns (${s.maxTurns}).`);
    return { observation, reward, terminated: false, truncated: false, info: this.info() };
  }

  sampleRandomAction(): string {
    return `\\boxed{${this.actionRng.choice(DIRECTIONS)}}`;
  }
}

/** Right-aligned numbers in cells wide enough for the target, "." for an empty cell. */
export function render2048(board: readonly number[], n: number, target: number): string {
  const width = Math.max(4, String(target * 2).length);
  const rows: string[] = [];
  for (let r = 0; r < n; r++) {
    rows.push(board.slice(r * n, (r + 1) * n).map((v) => (v === 0 ? '.' : String(v)).padStart(width)).join(''));
  }
  return rows.join('\n');
}

export function registerGame2048(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:Game2048-v0',
    description: 'Merge tiles on a 2048 board until one reaches the target.',
    schema: Game2048Options,
    create: (o, _spec, seed) => new Game2048(o, seed),
    variants: {
      easy: { target_tile: 64, max_turns: 50 },
      hard: { target_tile: 512, max_turns: 50 },
      'extreme-hard': { target_tile: 2048, max_turns: 100 },
      random: { random: true },
    },
  });
}
