/**
 * Minesweeper: reveal every safe cell and flag every mine. Mines are laid on the first reveal, away
 * from the 3×3 block around it, so the opening move is always safe. Each reveal scores
 * (cells it uncovered) / (safe cells), so clearing the board sums to 1.0; hitting a mine ends the game
 * with 0 for that step. As in GEM, the board is won only by a reveal once every mine is flagged and every
 * safe cell is open, and the board itself travels in `info.suffix`, not in the observation.
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';

export const MinesweeperOptions = z
  .object({
    rows: z.number().int().positive().default(8),
    cols: z.number().int().positive().default(8),
    num_mines: z.number().int().positive().default(10),
    max_turns: z.number().int().positive().default(20),
    /** `-random` draws an n×n board, n in 5..8, with n²/5 mines and n² turns at every reset. */
    random: z.boolean().default(false),
  })
  .strict()
  .refine((o) => o.num_mines <= o.rows * o.cols - 9, {
    message: 'num_mines must leave room for the 3×3 safe block around the first reveal (at most rows·cols − 9)',
    path: ['num_mines'],
  });
export type MinesweeperOptions = z.infer<typeof MinesweeperOptions>;

const MINE = -1;
const NEIGHBOURS = [
  [-1, -1], [-1, 0], [-1, 1],
  [0, -1], [0, 1],
  [1, -1], [1, 0], [1, 1],
] as const;

interface State {
  rows: number;
  cols: number;
  numMines: number;
  maxTurns: number;
  /** Row-major: MINE or the number of adjacent mines; all zero until the first reveal lays the mines. */
  grid: number[];
  revealed: boolean[];
  flagged: boolean[];
  minesLaid: boolean;
  turn: number;
}

export class Minesweeper extends BaseEnv<State> {
  constructor(readonly options: MinesweeperOptions, seed?: number) {
    super(seed);
  }

  protected clone(): Minesweeper {
    return new Minesweeper(this.options);
  }

  protected newEpisode(): ResetResult {
    let { rows, cols, num_mines: numMines, max_turns: maxTurns } = this.options;
    if (this.options.random) {
      const n = this.rng.int(5, 8);
      [rows, cols, numMines, maxTurns] = [n, n, Math.floor((n * n) / 5), n * n];
    }
    const cells = rows * cols;
    this.state = {
      rows, cols, numMines, maxTurns,
      grid: new Array(cells).fill(0),
      revealed: new Array(cells).fill(false),
      flagged: new Array(cells).fill(false),
      minesLaid: false,
      turn: 0,
    };
    const reveal = this.randomMove('reveal');
    const flag = this.randomMove('flag');
    const observation =
      `You are playing Minesweeper on a ${rows}×${cols} board hiding ${numMines} mines, and you have ` +
      `${maxTurns} turns. Your goal is to open every cell that is not a mine.\n` +
      `Each turn, give one command with a row and a column (both counted from 0) inside \\boxed{}:\n` +
      `- reveal opens a cell, e.g. ${reveal};\n` +
      `- flag marks a cell you believe hides a mine, or removes that mark, e.g. ${flag}.\n` +
      `On the board, '.' is a closed cell, 'F' a flagged one, and a number tells how many of the eight ` +
      `neighbouring cells hold mines. Your first reveal is always safe. Reason from the numbers to avoid ` +
      `the mines, and do not pick cells that are already open or flagged. To win, flag every mine and ` +
      `open every other cell.`;
    return { observation, info: { suffix: this.suffix() } };
  }

  private suffix(): string {
    return `Here is the current board:\n${this.renderBoard()}\nEnter your guess.`;
  }

  /** Column header right-aligned to width 2, then one line per row: ' . ' closed, ' F ' flag, ' n ' count. */
  renderBoard(): string {
    const s = this.state;
    const lines = ['   ' + Array.from({ length: s.cols }, (_, c) => String(c).padStart(2)).join(' ')];
    for (let r = 0; r < s.rows; r++) {
      let line = `${String(r).padStart(2)} `;
      for (let c = 0; c < s.cols; c++) {
        const i = r * s.cols + c;
        line += s.revealed[i] ? ` ${s.grid[i] === MINE ? '*' : s.grid[i]} ` : s.flagged[i] ? ' F ' : ' . ';
      }
      lines.push(line);
    }
    return lines.join('\n');
  }

  /** Lay the mines uniformly among cells outside the 3×3 block around (row, col), then count neighbours. */
  private layMines(row: number, col: number): void {
    const s = this.state;
    const candidates: number[] = [];
    for (let r = 0; r < s.rows; r++) {
      for (let c = 0; c < s.cols; c++) {
        if (Math.abs(r - row) > 1 || Math.abs(c - col) > 1) candidates.push(r * s.cols + c);
      }
    }
    for (const i of this.rng.sample(candidates, s.numMines)) s.grid[i] = MINE;
    for (let r = 0; r < s.rows; r++) {
      for (let c = 0; c < s.cols; c++) {
        if (s.grid[r * s.cols + c] === MINE) continue;
        s.grid[r * s.cols + c] = this.neighbours(r, c).filter((i) => s.grid[i] === MINE).length;
      }
    }
    s.minesLaid = true;
  }

  private neighbours(r: number, c: number): number[] {
    const s = this.state;
    const out: number[] = [];
    for (const [dr, dc] of NEIGHBOURS) {
      const [nr, nc] = [r + dr, c + dc];
      if (nr >= 0 && nr < s.rows && nc >= 0 && nc < s.cols) out.push(nr * s.cols + nc);
    }
    return out;
  }

  /** Open a safe cell; zero cells open their unflagged neighbours in turn. Returns how many opened. */
  private open(row: number, col: number): number {
    const s = this.state;
    const start = row * s.cols + col;
    s.revealed[start] = true;
    const queue = [start];
    for (let q = 0; q < queue.length; q++) {
      const i = queue[q];
      if (s.grid[i] !== 0) continue;
      for (const j of this.neighbours(Math.floor(i / s.cols), i % s.cols)) {
        if (!s.revealed[j] && !s.flagged[j]) {
          s.revealed[j] = true;
          queue.push(j);
        }
      }
    }
    return queue.length;
  }

  private solved(): boolean {
    const s = this.state;
    return s.grid.every((v, i) => (v === MINE ? s.flagged[i] : s.revealed[i]));
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    // GEM's pattern: a word, one whitespace character, a number, one whitespace character, a number.
    const m = lastBoxedMatch(action, /^([a-zA-Z]+)\s(\d+)\s(\d+)$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, you did not give a move in the required format, such as \\boxed{reveal 2 3}.`,
        s.turn === s.maxTurns,
        { suffix: this.suffix() },
      );
    }
    const command = m[1].toLowerCase();
    const [row, col] = [Number(m[2]), Number(m[3])];
    const i = row * s.cols + col;
    let observation: string;
    let reward: number = GameReward.invalidAction;
    if (row >= s.rows || col >= s.cols) {
      observation = `At turn ${s.turn}, you chose cell (${row}, ${col}), which lies outside the board.`;
    } else if (command === 'reveal') {
      if (!s.minesLaid) this.layMines(row, col);
      if (s.grid[i] === MINE) {
        // Checked before "already flagged", as in GEM: revealing a flagged mine still explodes.
        return {
          observation: `Game over! There was a mine at (${row}, ${col}).`,
          reward: GameReward.fail,
          terminated: true,
          truncated: false,
          info: { suffix: this.suffix() },
        };
      }
      if (s.revealed[i] || s.flagged[i]) {
        observation = `At turn ${s.turn}, you chose to reveal cell (${row}, ${col}), which is already open or flagged.`;
      } else {
        const safeCells = s.rows * s.cols - s.numMines;
        reward = this.open(row, col) / safeCells;
        if (this.solved()) {
          return {
            observation: 'Congratulations! You cleared the whole Minesweeper board.',
            reward,
            terminated: true,
            truncated: false,
            info: { suffix: this.suffix() },
          };
        }
        observation = `At turn ${s.turn}, you revealed cell (${row}, ${col}).`;
      }
    } else if (command === 'flag') {
      if (s.revealed[i]) {
        observation = `At turn ${s.turn}, you chose to flag cell (${row}, ${col}), which is already open.`;
      } else {
        s.flagged[i] = !s.flagged[i];
        reward = GameReward.internalStep;
        observation = `At turn ${s.turn}, you ${s.flagged[i] ? 'placed' : 'removed'} a flag on cell (${row}, ${col}).`;
      }
    } else {
      observation = `At turn ${s.turn}, '${command}' is not a command; use 'reveal' or 'flag'.`;
    }
    const info = { suffix: this.suffix() };
    if (s.turn >= s.maxTurns) return turnLimitStep(reward, info);
    return { observation, reward, terminated: false, truncated: false, info };
  }

  private randomMove(command?: 'reveal' | 'flag'): string {
    const rows = this.state?.rows ?? this.options.rows;
    const cols = this.state?.cols ?? this.options.cols;
    const cmd = command ?? (this.actionRng.int(0, 9) === 0 ? 'flag' : 'reveal');
    return `\\boxed{${cmd} ${this.actionRng.int(0, rows - 1)} ${this.actionRng.int(0, cols - 1)}}`;
  }

  /** Nine reveals for every flag, on a uniform cell, as GEM samples. */
  sampleRandomAction(): string {
    return this.randomMove();
  }
}

export function registerMinesweeper(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:Minesweeper-v0',
    description: 'Open every safe cell of a Minesweeper board and flag the mines.',
    schema: MinesweeperOptions,
    create: (o, _spec, seed) => new Minesweeper(o, seed),
    variants: {
      easy: { rows: 5, cols: 5, num_mines: 5, max_turns: 25 },
      hard: { rows: 8, cols: 8, num_mines: 12, max_turns: 64 },
      random: { random: true },
      // Legacy id from GEM's README: 8×8, 10 mines, 100 turns.
      '': { rows: 8, cols: 8, num_mines: 10, max_turns: 100 },
    },
  });
}
