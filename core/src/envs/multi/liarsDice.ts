/**
 * Liar's Dice for two players, a hidden-information game on the multi-agent API. Each player rolls
 * `dice_per_player` six-sided dice that only they can see. Players alternate bids such as "at least 3
 * dice among all of ours show a 5" (`\boxed{3 5}`); each bid must raise the last one (more dice, or the
 * same number of dice with a higher face). Instead of bidding, a player may call the last bid a lie
 * (`\boxed{liar}`): all dice are shown, and if the bid holds the caller loses, otherwise the bidder
 * loses (winner +1, loser −1). No wild faces.
 */
import { z } from 'zod';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerVariants } from '../../registry/variants.ts';
import { lastBoxed } from '../games/common.ts';
import { MultiReward, TurnBasedGame, TurnBasedOptions, type MoveResult } from '../../multiagent/turnBasedGame.ts';

export const LiarsDiceOptions = TurnBasedOptions.extend({
  dice_per_player: z.number().int().min(1).max(10).default(3),
  max_turns: z.number().int().positive().default(60),
}).strict();
export type LiarsDiceOptions = z.infer<typeof LiarsDiceOptions>;

const FACES = 6;

interface Table {
  /** Each player's dice, by seat. */
  dice: number[][];
  /** The standing bid and who made it. */
  bid?: { quantity: number; face: number; by: number };
  opener: number;
}

export class LiarsDice extends TurnBasedGame<Table, LiarsDiceOptions> {
  readonly players = ['player_1', 'player_2'] as const;

  protected clone(): LiarsDice {
    return new LiarsDice(this.options);
  }

  private get totalDice(): number {
    return this.options.dice_per_player * this.players.length;
  }

  protected setup(): Table {
    const roll = () => Array.from({ length: this.options.dice_per_player }, () => this.rng.int(1, FACES)).sort((a, b) => a - b);
    return { dice: this.players.map(roll), opener: this.rng.int(0, this.players.length - 1) };
  }

  protected firstPlayer(): number {
    return this.state.game.opener;
  }

  protected rules(player: string): string {
    return (
      `You are ${player} in a game of Liar's Dice against one opponent. Each of you rolled ` +
      `${this.options.dice_per_player} six-sided dice; you see only your own. Players take turns. On your ` +
      `turn, either raise the bid or call it a lie.\n` +
      `- A bid "Q F" claims that at least Q of all ${this.totalDice} dice (yours and your opponent's) show ` +
      `the face F. Write it as \\boxed{Q F}, e.g. \\boxed{2 4}. A new bid must name more dice than the last ` +
      `one, or the same number of dice with a higher face.\n` +
      `- \\boxed{liar} challenges the last bid: all dice are shown; if the bid was true you lose, otherwise ` +
      `the bidder loses.`
    );
  }

  protected view(player: string): string {
    const t = this.state.game;
    const mine = t.dice[this.players.indexOf(player as never)];
    const bid = t.bid ? `The standing bid, by ${this.players[t.bid.by]}: at least ${t.bid.quantity} dice showing ${t.bid.face}.` : 'No bid has been made yet.';
    return `Your dice: ${mine.join(' ')}\n${bid}`;
  }

  private count(face: number): number {
    return this.state.game.dice.flat().filter((d) => d === face).length;
  }

  protected move(player: string, action: string): MoveResult {
    const t = this.state.game;
    const seat = this.players.indexOf(player as never);
    const other = this.players[1 - seat];
    const inner = lastBoxed(action)?.trim().toLowerCase();
    if (inner === undefined) return { ok: false, reason: 'put a bid such as \\boxed{2 4} or \\boxed{liar} in your answer.' };
    if (inner === 'liar') {
      if (!t.bid) return { ok: false, reason: 'there is no bid to challenge yet; make the first bid.' };
      const { quantity, face, by } = t.bid;
      const actual = this.count(face);
      const bidderWins = actual >= quantity;
      const winner = bidderWins ? this.players[by] : player;
      const loser = bidderWins ? player : this.players[by];
      return {
        ok: true,
        message:
          `${player} called ${this.players[by]}'s bid of ${quantity} × ${face} a lie; there were ${actual} ` +
          `dice showing ${face}, so ${winner} wins.`,
        outcome: { [winner]: MultiReward.win, [loser]: MultiReward.loss },
      };
    }
    const m = /^(?:bid\s+)?(\d+)\s*(?:[x×,]\s*)?(\d+)$/.exec(inner);
    if (!m) return { ok: false, reason: `'${inner}' is neither a bid like \\boxed{2 4} nor \\boxed{liar}.` };
    const [quantity, face] = [Number(m[1]), Number(m[2])];
    if (face < 1 || face > FACES) return { ok: false, reason: `dice faces run from 1 to ${FACES}, not ${face}.` };
    if (quantity < 1 || quantity > this.totalDice) return { ok: false, reason: `a bid names between 1 and ${this.totalDice} dice, not ${quantity}.` };
    if (t.bid && !(quantity > t.bid.quantity || (quantity === t.bid.quantity && face > t.bid.face))) {
      return { ok: false, reason: `${quantity} × ${face} does not raise the standing bid of ${t.bid.quantity} × ${t.bid.face}.` };
    }
    t.bid = { quantity, face, by: seat };
    return { ok: true, message: `${player} bid that at least ${quantity} dice show ${face}.`, next: other };
  }

  /** Call a standing bid one time in three (always when no raise is left); otherwise raise a little. */
  protected randomMove(): string {
    const bid = this.state?.game.bid;
    const raises: string[] = [];
    const [q0, f0] = bid ? [bid.quantity, bid.face] : [1, 0];
    for (let q = q0; q <= Math.min(q0 + 1, this.totalDice); q++) {
      for (let f = 1; f <= FACES; f++) if (q > q0 || f > f0) raises.push(`${q} ${f}`);
    }
    if (bid && (raises.length === 0 || this.actionRng.int(0, 2) === 0)) return '\\boxed{liar}';
    return `\\boxed{${this.actionRng.choice(raises.length ? raises : ['1 1'])}}`;
  }

  protected finalReport(): string {
    const t = this.state.game;
    return this.players.map((p, i) => `${p}'s dice: ${t.dice[i].join(' ')}`).join('\n');
  }
}

export function registerLiarsDice(registry: EnvRegistry): string[] {
  return registerVariants(registry, {
    stem: 'multi:LiarsDice-v0',
    description: "Two-player Liar's Dice: bid on hidden dice or call a bluff (each player sees only their own dice).",
    schema: LiarsDiceOptions,
    create: (o, _spec, seed) => new LiarsDice(o, seed),
    variants: { '': {} },
  });
}
