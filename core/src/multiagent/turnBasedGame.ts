/**
 * Turn-based games for several players, each with a view of its own (hidden cards, dice).
 *
 * Two ways to drive one:
 *
 * 1. As a plain `Env` (what the registry, vector envs, the server and `checkEnv` see), from the acting
 *    player's viewpoint. The observation of `reset` and of every `step` is the complete text the player
 *    to move should see: rules, the public history of moves and, in `info.suffix`, that player's private
 *    view and a prompt. `step(action)` is the move of `info.player`. The step's scalar `reward` is what
 *    that step gave the player who just acted (`info.actor`); `info.rewards` gives every player's reward
 *    for the step and `info.returns` the running totals, so a self-play trainer can credit, say, X's
 *    loss to X even though it happened on O's move. We chose this over GEM's dict-in, dict-out step
 *    because it keeps the single Env contract intact: one text in, one text out, finite scalar rewards,
 *    deterministic under a seed, `spawn({sameState})` and sync twins, so every wrapper and trainer
 *    adapter works unchanged and `checkEnv` passes. Observations are complete every turn, so do not
 *    stack a history-concatenating observation wrapper on a hidden-information game: it would show one
 *    player what another saw.
 * 2. Natively, in GEM's dict style: `observe(player)` for anyone's view at any time, and
 *    `stepAgents({[player]: action})`, which takes exactly the player to move and answers with
 *    per-player observations, rewards, terminations, truncations and infos.
 *
 * Rules every game shares: an invalid move (unparsable or illegal) costs its player −0.1, is explained to
 * that player only, and the same player moves again; one more invalid move in a row than
 * `invalid_move_allowance` forfeits the game (forfeiter −1, everyone else +1). A normal end gives the
 * game's outcome (win +1, loss −1, draw 0); `max_turns` (counting every step) ends the game as a draw
 * with both flags set. Every step reports every player's reward, mostly zeros until the end.
 */
import { z } from 'zod';
import { BaseEnv } from '../core/baseEnv.ts';
import { GemError } from '../core/errors.ts';
import type { Info, ResetResult, StepResult } from '../core/env.ts';

export const MultiReward = {
  win: 1.0,
  loss: -1.0,
  draw: 0.0,
  invalidMove: -0.1,
  forfeit: -1.0,
} as const;

/** Options every turn-based game accepts; games extend this object schema with their own. */
export const TurnBasedOptions = z.object({
  /** Invalid moves a player may make in a row; one more forfeits the game. */
  invalid_move_allowance: z.number().int().nonnegative().default(2),
  /** Steps (valid or not) after which the game ends as a draw. */
  max_turns: z.number().int().positive().default(50),
});
export type TurnBasedOptions = z.infer<typeof TurnBasedOptions>;

/** What a game says about one attempted move. */
export type MoveResult =
  | { ok: false; reason: string }
  | {
      ok: true;
      /** Public narration of the move, added to the history every player sees. */
      message: string;
      /** Set when the move ends the game: each player's final reward. */
      outcome?: Record<string, number>;
      /** Who moves next (default: the next player in seating order). */
      next?: string;
    };

export interface TurnState<G> {
  game: G;
  toMove: number;
  turn: number;
  maxTurns: number;
  /** Invalid moves in a row, per seat. */
  invalidStreak: number[];
  returns: number[];
  history: string[];
  /** Why the last move of the player to move was refused, shown to that player only. */
  refusal?: string;
  over: boolean;
}

/** GEM-style dict result of `stepAgents`. */
export interface AgentsStepResult {
  observations: Record<string, string>;
  rewards: Record<string, number>;
  terminations: Record<string, boolean>;
  truncations: Record<string, boolean>;
  infos: Record<string, Info>;
}

export abstract class TurnBasedGame<G, O extends TurnBasedOptions = TurnBasedOptions> extends BaseEnv<TurnState<G>> {
  /** Seat order; the first player moves first unless `firstPlayer` says otherwise. */
  abstract readonly players: readonly string[];

  constructor(readonly options: O, seed?: number) {
    super(seed);
  }

  /** A fresh game, drawing any randomness from `this.rng`. */
  protected abstract setup(): G;
  /** The rules as one player should read them (may mention what only they know). */
  protected abstract rules(player: string): string;
  /** What `player` sees of the game now: the board, their own hand. */
  protected abstract view(player: string): string;
  /** Try `action` for `player`; mutate `this.state.game` only when the move is valid. */
  protected abstract move(player: string, action: string): MoveResult;
  /** A random move for `player` (valid where the game can tell cheaply), drawn from `this.actionRng`. */
  protected abstract randomMove(player: string): string;
  /** A line shown once the game is over (e.g. revealing hidden hands). */
  protected abstract finalReport(): string;
  /** Seat index of the first player to move. */
  protected firstPlayer(): number {
    return 0;
  }

  get currentPlayer(): string | undefined {
    return this.state && !this.state.over ? this.players[this.state.toMove] : undefined;
  }

  protected newEpisode(): ResetResult {
    const n = this.players.length;
    this.state = {
      game: undefined as G,
      toMove: 0,
      turn: 0,
      maxTurns: this.options.max_turns,
      invalidStreak: new Array(n).fill(0),
      returns: new Array(n).fill(0),
      history: [],
      over: false,
    };
    this.state.game = this.setup();
    this.state.toMove = this.firstPlayer();
    const player = this.players[this.state.toMove];
    return { observation: this.observationText(player), info: this.info(player, undefined, this.zeros()) };
  }

  private zeros(): number[] {
    return new Array(this.players.length).fill(0);
  }

  private record(values: number[]): Record<string, number> {
    return Object.fromEntries(this.players.map((p, i) => [p, values[i]]));
  }

  /** Rules and public history; a refused move is explained to the player who made it. */
  private observationText(player: string): string {
    const s = this.state;
    const parts: string[] = [];
    if (s.refusal && player === this.currentPlayer) parts.push(s.refusal);
    parts.push(this.rules(player));
    parts.push(s.history.length ? `Moves so far:\n${s.history.map((h) => `- ${h}`).join('\n')}` : 'No moves have been made yet.');
    return parts.join('\n\n');
  }

  private suffixText(player: string): string {
    const prompt = player === this.currentPlayer ? `${player}, it is your move.` : `It is ${this.currentPlayer ?? 'nobody'}'s move.`;
    return `${this.view(player)}\n${prompt}`;
  }

  private info(player: string | undefined, actor: string | undefined, rewards: number[]): Info {
    const info: Info = {
      players: [...this.players],
      rewards: this.record(rewards),
      returns: this.record(this.state.returns),
    };
    if (actor !== undefined) info.actor = actor;
    if (player !== undefined) {
      info.player = player;
      info.suffix = this.suffixText(player);
    }
    return info;
  }

  /** The complete text `player` would see now (their turn or not). */
  observe(player: string): string {
    this.seatOf(player);
    if (!this.state) throw new GemError('RESET_NEEDED', 'Cannot observe before reset().');
    const s = this.state;
    if (s.over) return `${s.history.length ? `${s.history[s.history.length - 1]}\n` : ''}${this.finalReport()}`;
    return `${this.observationText(player)}\n\n${this.suffixText(player)}`;
  }

  private seatOf(player: string): number {
    const seat = this.players.indexOf(player);
    if (seat < 0) throw new GemError('INVALID_ACTION_BATCH', `Unknown player '${player}'; players are ${this.players.join(', ')}.`, { player });
    return seat;
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.turn += 1;
    const seat = s.toMove;
    const actor = this.players[seat];
    const rewards = this.zeros();
    const result = this.move(actor, action);
    let truncated = false;
    s.refusal = undefined;
    if (!result.ok) {
      s.invalidStreak[seat] += 1;
      const left = this.options.invalid_move_allowance - s.invalidStreak[seat];
      if (left < 0) {
        s.history.push(`${actor} made too many invalid moves in a row and forfeits the game.`);
        this.players.forEach((_, i) => (rewards[i] = i === seat ? MultiReward.forfeit : MultiReward.win));
        s.over = true;
      } else {
        rewards[seat] = MultiReward.invalidMove;
        s.refusal = `Your last move was not accepted: ${result.reason} Try again; ${left} more invalid move(s) in a row would forfeit the game.`;
      }
    } else {
      s.invalidStreak[seat] = 0;
      s.history.push(result.message);
      if (result.outcome) {
        this.players.forEach((p, i) => (rewards[i] = result.outcome![p] ?? 0));
        s.over = true;
      } else {
        s.toMove = result.next !== undefined ? this.seatOf(result.next) : (seat + 1) % this.players.length;
      }
    }
    if (!s.over && s.turn >= s.maxTurns) {
      s.history.push(`The game reached its limit of ${s.maxTurns} turns and ends in a draw.`);
      s.over = true;
      truncated = true;
    }
    rewards.forEach((r, i) => (s.returns[i] += r));
    const next = s.over ? undefined : this.players[s.toMove];
    const observation = next === undefined ? this.observe(actor) : this.observationText(next);
    return { observation, reward: rewards[seat], terminated: s.over, truncated, info: this.info(next, actor, rewards) };
  }

  sampleRandomAction(): string {
    return this.randomMove(this.currentPlayer ?? this.players[0]);
  }

  /**
   * GEM's dict-style step: `actions` must hold exactly the player to move. Answers with every
   * player's observation, this step's reward for each, and the shared end flags.
   */
  stepAgents(actions: Record<string, string>): AgentsStepResult {
    const mover = this.currentPlayer;
    const keys = Object.keys(actions);
    for (const k of keys) this.seatOf(k);
    if (mover === undefined || keys.length !== 1 || keys[0] !== mover) {
      throw new GemError(
        'INVALID_ACTION_BATCH',
        mover === undefined ? 'The game is over; call reset().' : `Only ${mover} may move now; got actions for ${keys.join(', ') || 'nobody'}.`,
        { expected: mover, got: keys },
      );
    }
    const r = this.stepSync(actions[mover]);
    const byPlayer = <T>(f: (p: string) => T) => Object.fromEntries(this.players.map((p) => [p, f(p)]));
    return {
      observations: byPlayer((p) => this.observe(p)),
      rewards: r.info.rewards as Record<string, number>,
      terminations: byPlayer(() => r.terminated),
      truncations: byPlayer(() => r.truncated),
      infos: byPlayer((p) => ({ ...r.info, suffix: r.info.player === undefined ? undefined : this.suffixText(p) })),
    };
  }
}
