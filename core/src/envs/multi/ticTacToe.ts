/**
 * TicTacToe for two players, X and O, on the multi-agent API. Cells are numbered 1–9 row by row and a
 * move is the number of a free cell in \boxed{}. Three in a row wins (+1, the other −1); a full board
 * is a draw (0 each). Option `first`: who opens ('X', 'O' or 'random', drawn from the seed).
 */
import { z } from 'zod';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import { lastBoxedMatch } from '../games/common.ts';
import { MultiReward, TurnBasedGame, TurnBasedOptions, type MoveResult } from '../../multiagent/turnBasedGame.ts';

export const TicTacToeOptions = TurnBasedOptions.extend({
  max_turns: z.number().int().positive().default(30),
  first: z.enum(['X', 'O', 'random']).default('X'),
}).strict();
export type TicTacToeOptions = z.infer<typeof TicTacToeOptions>;

const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8],
  [0, 3, 6], [1, 4, 7], [2, 5, 8],
  [0, 4, 8], [2, 4, 6],
] as const;

interface Board {
  /** '' for a free cell. */
  cells: string[];
  opener: number;
}

export class TicTacToe extends TurnBasedGame<Board, TicTacToeOptions> {
  readonly players = ['X', 'O'] as const;

  protected clone(): TicTacToe {
    return new TicTacToe(this.options);
  }

  protected setup(): Board {
    const opener = this.options.first === 'random' ? this.rng.int(0, 1) : this.options.first === 'X' ? 0 : 1;
    return { cells: new Array(9).fill(''), opener };
  }

  protected firstPlayer(): number {
    return this.state.game.opener;
  }

  protected rules(player: string): string {
    return (
      `You are playing TicTacToe as ${player} against ${player === 'X' ? 'O' : 'X'}. Players take turns ` +
      `marking one free cell of a 3×3 grid; the first to get three marks in a row (across, down or ` +
      `diagonally) wins, and a full grid with no line is a draw. Cells are numbered 1 to 9, left to right ` +
      `and top to bottom; give the number of a free cell inside \\boxed{}, e.g. \\boxed{5}.`
    );
  }

  protected view(): string {
    const c = this.state.game.cells.map((v, i) => v || String(i + 1));
    return `The grid (numbers are free cells):\n ${c[0]} | ${c[1]} | ${c[2]}\n---+---+---\n ${c[3]} | ${c[4]} | ${c[5]}\n---+---+---\n ${c[6]} | ${c[7]} | ${c[8]}`;
  }

  protected move(player: string, action: string): MoveResult {
    const cells = this.state.game.cells;
    const m = lastBoxedMatch(action, /^(\d+)$/);
    if (!m) return { ok: false, reason: 'give the number of a cell (1–9) inside \\boxed{}.' };
    const cell = Number(m[1]);
    if (cell < 1 || cell > 9) return { ok: false, reason: `there is no cell ${cell}; cells are numbered 1 to 9.` };
    if (cells[cell - 1]) return { ok: false, reason: `cell ${cell} is already taken by ${cells[cell - 1]}.` };
    cells[cell - 1] = player;
    const other = player === 'X' ? 'O' : 'X';
    if (LINES.some((line) => line.every((i) => cells[i] === player))) {
      return { ok: true, message: `${player} took cell ${cell} and completed a line: ${player} wins.`, outcome: { [player]: MultiReward.win, [other]: MultiReward.loss } };
    }
    if (cells.every(Boolean)) {
      return { ok: true, message: `${player} took cell ${cell}; the grid is full and the game is a draw.`, outcome: { X: MultiReward.draw, O: MultiReward.draw } };
    }
    return { ok: true, message: `${player} took cell ${cell}.` };
  }

  protected randomMove(): string {
    const free = this.state ? this.state.game.cells.flatMap((v, i) => (v ? [] : [i + 1])) : [];
    return `\\boxed{${free.length ? this.actionRng.choice(free) : this.actionRng.int(1, 9)}}`;
  }

  protected finalReport(): string {
    return this.view();
  }
}

export function registerTicTacToe(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'multi:TicTacToe-v0',
    description: 'Two-player TicTacToe (X and O take turns at one env; per-player rewards in info).',
    schema: TicTacToeOptions,
    create: (o, _spec, seed) => new TicTacToe(o, seed),
    variants: { '': {} },
  });
}
