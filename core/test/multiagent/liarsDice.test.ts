import { describe, expect, it } from 'vitest';
import { make, type Env } from '../../src/index.ts';
import type { LiarsDice } from '../../src/envs/multi/liarsDice.ts';

/** The game under make's lifecycle layer, for its own methods (observe). */
const game = (env: Env) => env.unwrapped as unknown as LiarsDice;

/** Each player's own dice, as their private view shows them. */
function diceOf(env: Env, player: string): number[] {
  return /Your dice: ([\d ]+)/.exec(game(env).observe(player))![1].split(' ').map(Number);
}

async function opened(seed: number, options: Record<string, unknown> = {}) {
  const env = make('multi:LiarsDice-v0', options);
  const { info } = await env.reset({ seed });
  const first = info.player as string;
  const second = first === 'player_1' ? 'player_2' : 'player_1';
  return { env, first, second };
}

describe('multi:LiarsDice-v0', () => {
  it('shows each player only their own dice until the end', async () => {
    const { env, first, second } = await opened(3);
    const mine = diceOf(env, first);
    expect(mine).toHaveLength(3);
    expect(game(env).observe(first)).not.toMatch(/player_\d's dice/);
    const r = await env.step('\\boxed{1 1}');
    expect(r.info.player).toBe(second);
    expect(r.info.suffix).toContain(`Your dice: ${diceOf(env, second).join(' ')}`);
    expect(r.info.suffix).toMatch(/standing bid, by .*: at least 1 dice showing 1/);
    const end = await env.step('\\boxed{liar}');
    expect(end.terminated).toBe(true);
    expect(end.observation).toContain(`${first}'s dice: ${mine.join(' ')}`);
  });

  it('the caller wins against a false bid', async () => {
    const { env, first, second } = await opened(7);
    const all = [...diceOf(env, first), ...diceOf(env, second)];
    const count = all.filter((d) => d === 6).length;
    await env.step(`\\boxed{${count + 1} 6}`);
    const r = await env.step('I do not believe it: \\boxed{LIAR}');
    expect(r).toMatchObject({ reward: 1, terminated: true, truncated: false });
    expect(r.info.rewards).toEqual({ [second]: 1, [first]: -1 });
    expect(r.observation).toMatch(new RegExp(`there were ${count} dice showing 6, so ${second} wins`));
  });

  it('the bidder wins when a true bid is called', async () => {
    const { env, first, second } = await opened(8);
    const face = diceOf(env, first)[0];
    await env.step(`\\boxed{bid 1 ${face}}`);
    const r = await env.step('\\boxed{liar}');
    expect(r).toMatchObject({ reward: -1, terminated: true });
    expect(r.info.rewards).toEqual({ [first]: 1, [second]: -1 });
  });

  it('refuses moves that break the bidding rules (−0.1, same player again)', async () => {
    const { env, first, second } = await opened(1);
    const early = await env.step('\\boxed{liar}');
    expect(early).toMatchObject({ reward: -0.1, terminated: false });
    expect(early.info.player).toBe(first);
    expect(early.observation).toMatch(/no bid to challenge yet/);
    await env.step('\\boxed{2 4}');
    for (const [bad, why] of [
      ['\\boxed{2 3}', /does not raise the standing bid of 2 × 4/],
      ['\\boxed{1 6}', /does not raise/],
      ['\\boxed{3 7}', /faces run from 1 to 6/],
      ['\\boxed{9 2}', /between 1 and 6 dice/],
    ] as const) {
      const r = await env.spawn({ sameState: true }).step(bad);
      expect(r.reward).toBe(-0.1);
      expect(r.info.player).toBe(second);
      expect(r.observation).toMatch(why);
    }
    expect((await env.step('\\boxed{2 5}')).reward).toBe(0);
    expect((await env.step('\\boxed{call}')).observation).toMatch(/neither a bid like/);
  });

  it('ends as a draw at the turn limit', async () => {
    const { env } = await opened(2, { max_turns: 2 });
    await env.step('\\boxed{1 1}');
    const r = await env.step('\\boxed{1 2}');
    expect(r).toMatchObject({ reward: 0, terminated: true, truncated: true });
    expect(r.info.returns).toEqual({ player_1: 0, player_2: 0 });
  });

  it('plays random games to a decided end, with returns summing to zero', async () => {
    const env = make('multi:LiarsDice-v0', { dice_per_player: 5 });
    for (let seed = 0; seed < 50; seed++) {
      await env.reset({ seed });
      let r;
      do r = await env.step(env.sampleRandomAction());
      while (!r.terminated);
      expect(r.truncated).toBe(false);
      const returns = Object.values(r.info.returns as Record<string, number>);
      expect(returns.reduce((a, b) => a + b, 0)).toBeCloseTo(0);
    }
  });
});
