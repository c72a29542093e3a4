/**
 * Sudoku: fill a 4×4 or 9×9 grid so every row, column and box holds each digit once. Puzzles are
 * generated with exactly one solution. Each correct placement earns 1/(number of blanks), so a solved
 * grid sums to 1.0; a wrong digit or a given cell is an invalid move (0, play goes on).
 */
import { z } from 'zod';
import { BaseEnv } from '../../core/baseEnv.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import type { ResetResult, StepResult } from '../../core/env.ts';
import { GameReward, formatErrorStep, lastBoxedMatch, turnLimitStep } from './common.ts';
import { carvePuzzle, randomSudokuGrid } from './solvers/sudokuSolver.ts';

export const SudokuOptions = z
  .object({
    /** How many givens to keep; more stay when removing one would allow a second solution. */
    clues: z.number().int().nonnegative().default(30),
    max_turns: z.number().int().positive().default(100),
    scale: z.union([z.literal(4), z.literal(9)]).default(9),
    /** `-random` variants draw one of GEM's presets at every reset. */
    random: z.boolean().default(false),
  })
  .strict()
  .refine((o) => o.clues <= o.scale * o.scale, { message: 'clues cannot exceed the number of cells', path: ['clues'] });
export type SudokuOptions = z.infer<typeof SudokuOptions>;

/** GEM's presets as (scale, clues, max_turns). */
const PRESETS = [
  { scale: 4, clues: 10, maxTurns: 15 },
  { scale: 9, clues: 50, maxTurns: 50 },
] as const;

interface State {
  size: number;
  maxTurns: number;
  solution: number[];
  board: number[];
  blanks: number;
  turn: number;
}

export class Sudoku extends BaseEnv<State> {
  constructor(readonly options: SudokuOptions, seed?: number) {
    super(seed);
  }

  protected clone(): Sudoku {
    return new Sudoku(this.options);
  }

  protected newEpisode(): ResetResult {
    const preset = this.options.random
      ? this.rng.choice(PRESETS)
      : { scale: this.options.scale, clues: this.options.clues, maxTurns: this.options.max_turns };
    const size = preset.scale;
    const solution = randomSudokuGrid(size, this.rng);
    const board = carvePuzzle(solution, size, preset.clues, this.rng);
    const blanks = board.filter((v) => v === 0).length;
    this.state = { size, maxTurns: preset.maxTurns, solution, board, blanks, turn: 0 };
    const side = Math.sqrt(size);
    const kind = size === 4 ? 'a small 4×4 version of Sudoku' : 'Sudoku';
    const observation =
      `You are playing ${kind}. The grid has ${size} rows and ${size} columns, split into ${size} boxes ` +
      `of ${side}×${side} cells. Empty cells are shown as '.'. Fill every empty cell with a digit from 1 to ` +
      `${size} so that each row, each column and each box contains every digit exactly once.\n` +
      `Rules: fill only empty cells; the given digits cannot be changed; a digit that does not belong ` +
      `in a cell is an invalid move.\n` +
      `Give one placement per turn as \\boxed{row column digit}, with rows and columns counted from 1 ` +
      `— for example ${this.sampleRandomAction()} puts that digit in that cell. You have ` +
      `${preset.maxTurns} turns. Your earlier moves and the results will be shown below.`;
    return { observation, info: this.info() };
  }

  private info(): { suffix: string } {
    return { suffix: `Current board:\n${renderSudoku(this.state.board, this.state.size)}\nEnter your move.` };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const atLimit = s.turn >= s.maxTurns;
    const m = lastBoxedMatch(action, /^(\d+)\s+(\d+)\s+(\d+)$/);
    if (!m) {
      return formatErrorStep(
        `At turn ${s.turn}, your move was not in the required format: \\boxed{row column digit}.`,
        atLimit,
        this.info(),
      );
    }
    const [row, col, digit] = [Number(m[1]), Number(m[2]), Number(m[3])];
    let observation: string;
    let reward: number = GameReward.invalidAction;
    const inRange = (v: number) => v >= 1 && v <= s.size;
    if (!inRange(row) || !inRange(col) || !inRange(digit)) {
      observation = `At turn ${s.turn}, you tried ${row} ${col} ${digit}, but rows, columns and digits run from 1 to ${s.size}.`;
    } else {
      const cell = (row - 1) * s.size + (col - 1);
      if (s.board[cell] !== 0) {
        observation = `At turn ${s.turn}, you tried to write in row ${row}, column ${col}, which is already filled.`;
      } else if (s.solution[cell] !== digit) {
        observation = `At turn ${s.turn}, you tried ${digit} in row ${row}, column ${col}, but that digit does not belong there.`;
      } else {
        s.board[cell] = digit;
        reward = 1 / s.blanks;
        if (!s.board.includes(0)) {
          return {
            observation: `Congratulations! You completed the Sudoku at turn ${s.turn}.`,
            reward,
            terminated: true,
            truncated: false,
            info: this.info(),
          };
        }
        observation = `At turn ${s.turn}, you placed ${digit} in row ${row}, column ${col}.`;
      }
    }
    if (atLimit) return turnLimitStep(reward, this.info());
    return { observation, reward, terminated: false, truncated: false, info: this.info() };
  }

  sampleRandomAction(): string {
    const size = this.state?.size ?? this.options.scale;
    const r = () => this.actionRng.int(1, size);
    return `\\boxed{${r()} ${r()} ${r()}}`;
  }
}

/** Column header, rows with '|' between boxes, and dashed lines between box rows. */
export function renderSudoku(board: readonly number[], size: number): string {
  const side = Math.sqrt(size);
  const group = (items: string[]) => {
    const parts: string[] = [];
    for (let i = 0; i < size; i += side) parts.push(items.slice(i, i + side).join(' '));
    return parts;
  };
  const cols = Array.from({ length: size }, (_, c) => `C${c + 1}`);
  const header = group(cols);
  const lines = [`   ${header.join('   ')}`];
  const rule = `   ${header.map((g) => '-'.repeat(g.length)).join('-+-')}`;
  for (let r = 0; r < size; r++) {
    if (r > 0 && r % side === 0) lines.push(rule);
    const cells = board.slice(r * size, (r + 1) * size).map((v) => (v === 0 ? ' .' : ` ${v}`));
    lines.push(`R${r + 1} ${group(cells).join(' | ')}`);
  }
  return lines.join('\n');
}

export function registerSudoku(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'game:Sudoku-v0',
    description: 'Fill a 4×4 or 9×9 Sudoku with a unique solution, one digit per turn.',
    schema: SudokuOptions,
    create: (o, _spec, seed) => new Sudoku(o, seed),
    variants: {
      easy: { scale: 4, clues: 10, max_turns: 15 },
      hard: { scale: 9, clues: 50, max_turns: 50 },
      random: { random: true },
    },
  });
}
