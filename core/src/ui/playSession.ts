/**
 * Play: one episode of any registered env, played by a person in the browser or by a model behind an
 * OpenAI-compatible endpoint while the person watches. The episode is driven by the evaluator's own
 * `runEpisode` (chat mode), with the person standing in for the chat client, so a played episode is
 * the same transcript record `gem-ts eval` writes, appended to the play folder's transcripts.jsonl
 * and opened by the viewer like any other. The env is made through the core library (`make`); the UI
 * owns no env logic.
 */
import type { Env, ResetOptions, SpawnOptions, StepResult } from '../core/env.ts';
import { Wrapper } from '../core/wrapper.ts';
import { ChatClient, type ChatMessage, type ChatReply, type SamplingOptions } from '../eval/chatClient.ts';
import { runEpisode } from '../eval/runEpisode.ts';
import type { EpisodeRecord } from '../eval/transcript.ts';
import type { PlayState } from './apiTypes.ts';
import { make } from '../envs/defaultRegistry.ts';
import '../envs/index.ts';

export interface PlayRequest {
  env_id: string;
  seed: number;
  /** The env's make options (e.g. `url` for openenv:Remote-v0, an inline `dataset`). */
  options?: Record<string, unknown>;
  player: 'human' | 'model';
  base_url?: string;
  model?: string;
  api_key?: string;
  temperature?: number;
  max_tokens?: number;
  /** Pause between a model's turns so a person can follow (default 0). */
  delay_ms?: number;
  max_turns?: number;
}

/** Records each step the evaluator makes, so the page can show rewards before the episode ends. */
class StepRecorder extends Wrapper<unknown, string, unknown, string> {
  readonly wrapperName = 'ui_step_recorder';

  constructor(
    env: Env<unknown, string>,
    private readonly onStep: (action: string, r: StepResult<unknown>) => void,
  ) {
    super(env);
  }

  reset(opts?: ResetOptions) {
    return this.env.reset(opts);
  }

  async step(action: string): Promise<StepResult<unknown>> {
    const r = await this.env.step(action);
    this.onStep(action, r);
    return r;
  }

  spawn(opts?: SpawnOptions): Env<unknown, string> {
    return new StepRecorder(this.env.spawn(opts), this.onStep);
  }
}

/** The person at the keyboard as a chat client: each completion waits for the browser's action. */
class HumanPlayer extends ChatClient {
  private pending?: { resolve: (text: string) => void; reject: (e: Error) => void };

  constructor(private readonly onTurn: (messages: readonly ChatMessage[], waiting: boolean) => void) {
    // Never contacted: complete() is overridden.
    super({ baseUrl: 'http://127.0.0.1/v1', model: 'human' });
  }

  get waiting(): boolean {
    return this.pending !== undefined;
  }

  override complete(messages: readonly ChatMessage[], _s?: SamplingOptions, signal?: AbortSignal): Promise<ChatReply> {
    const started = performance.now();
    return new Promise<string>((resolve, reject) => {
      this.pending = { resolve, reject };
      signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
      this.onTurn(messages, true);
    }).then((content) => ({ content, finishReason: 'stop', attempts: 1, latencyMs: Math.round(performance.now() - started) }));
  }

  act(action: string): boolean {
    const p = this.pending;
    if (!p) return false;
    this.pending = undefined;
    p.resolve(action);
    return true;
  }
}

/** A model behind an endpoint, reporting each conversation it is sent. */
class WatchedModel extends ChatClient {
  constructor(
    opts: ConstructorParameters<typeof ChatClient>[0],
    private readonly onTurn: (messages: readonly ChatMessage[], waiting: boolean) => void,
    private readonly delayMs: number,
  ) {
    super(opts);
  }

  override async complete(messages: readonly ChatMessage[], s?: SamplingOptions, signal?: AbortSignal): Promise<ChatReply> {
    this.onTurn(messages, false);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    return super.complete(messages, s, signal);
  }
}

export class PlaySession {
  readonly state: PlayState;
  private waiters: (() => void)[] = [];
  private abort = new AbortController();
  private human?: HumanPlayer;
  readonly finished: Promise<EpisodeRecord | undefined>;

  constructor(
    id: string,
    req: PlayRequest,
    private readonly save: (record: EpisodeRecord) => Promise<{ run: string; line: number }>,
  ) {
    const model = req.player === 'human' ? 'human' : (req.model ?? '');
    this.state = {
      id, env_id: req.env_id, seed: req.seed, player: req.player, model, version: 0,
      messages: [], steps: [], waiting_for_human: false, done: false, return: 0,
    };
    const env = new StepRecorder(make<unknown, string>(req.env_id, req.options ?? {}), (action, r) => {
      const { prefix: _p, suffix: _s, ...info } = r.info;
      this.state.steps.push({
        turn: this.state.steps.length + 1,
        action,
        observation: typeof r.observation === 'string' ? r.observation : JSON.stringify(r.observation),
        reward: r.reward,
        terminated: r.terminated,
        truncated: r.truncated,
        info,
      });
      this.state.return += r.reward;
      this.changed();
    });
    const onTurn = (messages: readonly ChatMessage[], waiting: boolean) => {
      this.state.messages = messages.map((m) => ({ ...m }));
      this.state.waiting_for_human = waiting;
      this.changed();
    };
    let client: ChatClient;
    if (req.player === 'human') {
      client = this.human = new HumanPlayer(onTurn);
    } else {
      if (!req.base_url || !req.model) throw new Error('a model player needs base_url and model');
      client = new WatchedModel({ baseUrl: req.base_url, model: req.model, apiKey: req.api_key || undefined, maxRetries: 1, timeoutMs: 120_000 }, onTurn, req.delay_ms ?? 0);
    }
    const sampling: SamplingOptions = {};
    if (req.temperature !== undefined) sampling.temperature = req.temperature;
    if (req.max_tokens !== undefined) sampling.maxTokens = req.max_tokens;
    const settings = { model, mode: 'chat' as const, maxTurns: req.max_turns ?? 100, sampling, runKey: `ui-play:${req.player}:${model}` };
    this.finished = runEpisode(env, client, req.env_id, { seed: req.seed }, settings, this.abort.signal)
      .then(async (record) => {
        this.state.success = record.success;
        this.state.return = record.return;
        this.state.saved = await this.save(record);
        return record;
      })
      .catch((e: Error) => {
        this.state.error = this.abort.signal.aborted ? 'stopped before the end (not saved)' : e.message;
        return undefined;
      })
      .finally(() => {
        this.state.done = true;
        this.state.waiting_for_human = false;
        this.changed();
        void env.close();
      });
  }

  private changed(): void {
    this.state.version++;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The state once it is newer than `since`, or after `timeoutMs` as it is. */
  async poll(since: number, timeoutMs: number): Promise<PlayState> {
    if (this.state.version <= since) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, timeoutMs);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.state;
  }

  /** The person's action for the current turn; false when it is not their turn. */
  act(action: string): boolean {
    if (!this.human?.waiting) return false;
    this.state.waiting_for_human = false;
    return this.human.act(action);
  }

  stop(): void {
    this.abort.abort();
  }
}
