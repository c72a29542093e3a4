import { describe, expect, it } from 'vitest';
import { make } from '../../src/index.ts';
import type { Env } from '../../src/index.ts';
import type { TicTacToe } from '../../src/envs/multi/ticTacToe.ts';

async function play(env: Env, cells: number[]) {
  let r;
  for (const c of cells) r = await env.step(`\\boxed{${c}}`);
  return r!;
}

describe('multi:TicTacToe-v0', () => {
  it('gives each player its own observation and names who moves', async () => {
    const env = make('multi:TicTacToe-v0');
    const reset = await env.reset({ seed: 0 });
    expect(reset.observation).toMatch(/as X against O/);
    expect(reset.info).toMatchObject({ player: 'X', players: ['X', 'O'], rewards: { X: 0, O: 0 } });
    expect(reset.info.suffix).toMatch(/ 1 \| 2 \| 3\n[^]*X, it is your move\./);
    const r = await env.step('\\boxed{5}');
    expect(r.observation).toMatch(/as O against X[^]*- X took cell 5\./);
    expect(r.info).toMatchObject({ player: 'O', actor: 'X', rewards: { X: 0, O: 0 } });
    expect(r.info.suffix).toMatch(/ 4 \| X \| 6/);
  });

  it('scores a win +1 for the winner and −1 for the loser on the winning step', async () => {
    const env = make('multi:TicTacToe-v0');
    await env.reset({ seed: 0 });
    const r = await play(env, [1, 4, 2, 5, 3]);
    expect(r).toMatchObject({ reward: 1, terminated: true, truncated: false });
    expect(r.info).toMatchObject({ actor: 'X', rewards: { X: 1, O: -1 }, returns: { X: 1, O: -1 } });
    expect(r.info.player).toBeUndefined();
    expect(r.observation).toMatch(/X took cell 3 and completed a line: X wins\.\nThe grid[^]*\n X \| X \| X\n/);
    await expect(env.step('\\boxed{9}')).rejects.toMatchObject({ code: 'RESET_NEEDED' });
  });

  it('scores a full board with no line as a draw', async () => {
    const env = make('multi:TicTacToe-v0');
    await env.reset({ seed: 0 });
    const r = await play(env, [1, 2, 3, 5, 4, 6, 8, 7, 9]);
    expect(r).toMatchObject({ reward: 0, terminated: true, truncated: false });
    expect(r.info.rewards).toEqual({ X: 0, O: 0 });
    expect(r.observation).toMatch(/draw/);
  });

  it('charges −0.1 for an invalid move, explains it to that player only, and lets them retry', async () => {
    const env = make('multi:TicTacToe-v0');
    await env.reset({ seed: 0 });
    await env.step('\\boxed{5}');
    const taken = await env.step('\\boxed{5}');
    expect(taken).toMatchObject({ reward: -0.1, terminated: false });
    expect(taken.info).toMatchObject({ player: 'O', actor: 'O', rewards: { X: 0, O: -0.1 } });
    expect(taken.observation).toMatch(/^Your last move was not accepted: cell 5 is already taken by X\. Try again; 1 more invalid move/);
    const unboxed = await env.step('the middle one');
    expect(unboxed.reward).toBe(-0.1);
    expect(unboxed.observation).toMatch(/inside \\boxed\{\}[^]*0 more invalid move/);
    const ok = await env.step('\\boxed{1}');
    expect(ok).toMatchObject({ reward: 0, terminated: false });
    expect(ok.info.player).toBe('X');
    expect(ok.observation).not.toMatch(/not accepted/);
    expect(ok.info.returns).toEqual({ X: 0, O: -0.2 });
  });

  it('forfeits a player who exceeds the invalid-move allowance', async () => {
    const env = make('multi:TicTacToe-v0', { invalid_move_allowance: 1 });
    await env.reset({ seed: 0 });
    expect((await env.step('\\boxed{0}')).reward).toBe(-0.1);
    const r = await env.step('\\boxed{10}');
    expect(r).toMatchObject({ reward: -1, terminated: true, truncated: false });
    expect(r.info.rewards).toEqual({ X: -1, O: 1 });
    expect(r.observation).toMatch(/X made too many invalid moves in a row and forfeits/);
  });

  it('resets the invalid streak after a valid move', async () => {
    const env = make('multi:TicTacToe-v0', { invalid_move_allowance: 1 });
    await env.reset({ seed: 0 });
    await env.step('\\boxed{0}');
    await env.step('\\boxed{5}');
    await env.step('\\boxed{1}');
    await env.step('\\boxed{0}');
    expect((await env.step('\\boxed{2}')).terminated).toBe(false);
  });

  it('ends as a draw with both flags at the turn limit', async () => {
    const env = make('multi:TicTacToe-v0', { max_turns: 3 });
    await env.reset({ seed: 0 });
    const r = await play(env, [1, 2, 9]);
    expect(r).toMatchObject({ reward: 0, terminated: true, truncated: true });
    expect(r.observation).toMatch(/limit of 3 turns and ends in a draw/);
  });

  it('lets O open, or draws the opener from the seed', async () => {
    expect((await make('multi:TicTacToe-v0', { first: 'O' }).reset({ seed: 0 })).info.player).toBe('O');
    const env = make('multi:TicTacToe-v0', { first: 'random' });
    const openers = new Set<unknown>();
    for (let s = 0; s < 20; s++) openers.add((await env.reset({ seed: s })).info.player);
    expect(openers).toEqual(new Set(['X', 'O']));
    expect((await env.reset({ seed: 3 })).info.player).toBe((await env.reset({ seed: 3 })).info.player);
  });

  it('offers GEM-style dict steps and anyone\'s view', async () => {
    const made = make('multi:TicTacToe-v0');
    await made.reset({ seed: 0 });
    // Dict steps and views are the game's own methods, under make's lifecycle layer.
    const env = made.unwrapped as unknown as TicTacToe;
    expect(() => env.stepAgents({ O: '\\boxed{1}' })).toThrow(/Only X may move now/);
    expect(() => env.stepAgents({ X: '\\boxed{1}', O: '\\boxed{2}' })).toThrow(/Only X may move now/);
    expect(() => env.stepAgents({ Z: '\\boxed{1}' })).toThrow(/Unknown player 'Z'/);
    const r = env.stepAgents({ X: '\\boxed{5}' });
    expect(r.rewards).toEqual({ X: 0, O: 0 });
    expect(r.terminations).toEqual({ X: false, O: false });
    expect(r.observations.O).toMatch(/O, it is your move\./);
    expect(r.observations.X).toMatch(/It is O's move\./);
    expect(env.currentPlayer).toBe('O');
    expect(env.observe('X')).toMatch(/as X against O/);
  });
});
