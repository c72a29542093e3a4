/**
 * The observation wrappers (GEM's ObservationWrapper under its four factory names). Game envs
 * return only the latest feedback; this wrapper keeps the episode's history and composes the text
 * an LLM sees:
 *   concat               obs₀ obs₁ … obsₙ, each ending in a newline
 *   concat_with_action   obs₀ act₀ obs₁ act₁ … obsₙ, each ending in a newline
 *   concat_chat          the history as chat messages (user/assistant, `tool` for observations of
 *                        tool calls), rendered with a chat template, ending with the generation prompt
 *   concat_chat_on_reset concat_with_action whose first observation is rendered as a one-message chat
 * The step's `info.prefix` / `info.suffix` (a task header, the current board) frame the result. In
 * the chat renderings they go inside the latest user message, so the prompt still ends with the
 * assistant's turn (GEM appends them after the rendered chat; we deliberately do not).
 * `info.parsed_action`, when an env or tool wrapper sets it, is kept in history instead of the raw
 * action. `max_history_length` N keeps the last N actions and N + 1 observations.
 * The kept text's length is reported to a StateMeter (heldState.ts) as it changes, so a server counts
 * it in the client's quota; reset and close let it go.
 */
import type { Env, Info, ResetResult, StepResult } from '../core/env.ts';
import { GemError } from '../core/errors.ts';
import type { ChatMessage, ChatTemplate } from './chatTemplate.ts';
import type { HeldStateReporter, StateMeter } from './heldState.ts';
import { HookWrapper } from './hookWrapper.ts';

export type HistoryMode = 'concat' | 'concat_with_action' | 'concat_chat' | 'concat_chat_on_reset';

export interface HistoryObservationOptions {
  mode: HistoryMode;
  maxHistoryLength?: number;
  /** Required by concat_chat and concat_chat_on_reset. */
  chatTemplate?: ChatTemplate;
}

function withNewline(text: string): string {
  return text && !text.endsWith('\n') ? text + '\n' : text;
}

/** `endsLine`: the caller knows `body` is '' or newline-terminated (then it is not read at all). */
function frame(info: Info, body: string, endsLine = false): string {
  const prefix = typeof info.prefix === 'string' ? info.prefix : '';
  const suffix = typeof info.suffix === 'string' ? info.suffix : '';
  // A suffix is its own line: a chat turn's body is not newline-terminated, and "…\boxed{}.Enter your
  // next guess." reads as one sentence.
  return prefix + (suffix && !endsLine ? withNewline(body) : body) + suffix;
}

/** The turns kept one by one, for the modes that need more than the running text. */
interface Turns {
  observations: string[];
  /** Parallel to `observations`: whether each came back from a tool call (GEM's info.use_tool). */
  fromTool: boolean[];
  /** One fewer than observations, oldest first. */
  actions: string[];
}

export class HistoryObservation extends HookWrapper implements HeldStateReporter {
  readonly wrapperName: HistoryMode;
  private readonly maxObs: number;
  /**
   * Kept only by concat_chat (it re-renders every message) and under max_history_length (the text
   * is rebuilt when the oldest turn drops); plain concatenation needs just the running text.
   */
  private readonly keepTurns: boolean;
  private turns?: Turns;
  /**
   * The text modes' history body, kept up to date by appending (O(1) per turn with V8's rope
   * strings) and rebuilt only when max_history_length drops the oldest turn.
   */
  private body = '';
  /** Characters of kept turns, summed as they come and go (never measured from the history). */
  private held = 0;
  private meter?: StateMeter;

  constructor(
    env: Env,
    readonly options: HistoryObservationOptions,
  ) {
    super(env);
    this.wrapperName = options.mode;
    const n = options.maxHistoryLength;
    if (n !== undefined && (!Number.isInteger(n) || n < 0)) {
      throw new GemError('INVALID_OPTIONS', `${options.mode}: max_history_length must be a non-negative integer, got ${n}`);
    }
    if ((options.mode === 'concat_chat' || options.mode === 'concat_chat_on_reset') && !options.chatTemplate) {
      throw new GemError(
        'INVALID_OPTIONS',
        `${options.mode} needs a chat_template: 'chatml', 'qwen', 'llama3' or a Jinja template string`,
      );
    }
    this.maxObs = n === undefined ? Infinity : n + 1;
    this.keepTurns = options.mode === 'concat_chat' || n !== undefined;
  }

  protected afterReset(r: ResetResult): ResetResult {
    // concat_chat_on_reset: the framed first observation becomes a one-message chat; later turns
    // are appended as text.
    const onReset = this.options.mode === 'concat_chat_on_reset';
    const first = onReset ? this.options.chatTemplate!([{ role: 'user', content: frame(r.info, r.observation) }]) : r.observation;
    this.turns = this.keepTurns ? { observations: [first], fromTool: [false], actions: [] } : undefined;
    this.body = withNewline(first);
    this.setHeld(first.length);
    return { observation: onReset ? first : this.compose(r.info), info: r.info };
  }

  protected afterStep(action: string, r: StepResult): StepResult {
    const parsed = r.info.parsed_action;
    const kept = typeof parsed === 'string' ? parsed : action;
    const t = this.turns;
    // concat without turns keeps only the observations.
    let held = this.held + r.observation.length + (t || this.options.mode !== 'concat' ? kept.length : 0);
    if (t) {
      t.actions.push(kept);
      t.observations.push(r.observation);
      t.fromTool.push(r.info.use_tool === true);
    }
    if (t && t.observations.length > this.maxObs) {
      held -= t.observations.shift()!.length + t.actions.shift()!.length;
      t.fromTool.shift();
      this.body = this.rebuildBody(t);
    } else if (this.options.mode === 'concat') {
      this.body += withNewline(r.observation);
    } else if (this.options.mode !== 'concat_chat') {
      this.body += withNewline(kept) + withNewline(r.observation);
    }
    this.setHeld(held);
    return {
      observation: this.compose(r.info),
      reward: r.reward,
      terminated: r.terminated,
      truncated: r.truncated,
      info: r.info,
    };
  }

  private compose(info: Info): string {
    // The text modes' body is '' or newline-terminated by construction; reading its last character
    // would flatten the rope it is kept as, a copy of the whole history on every step.
    return this.options.mode === 'concat_chat' ? this.renderChat(info) : frame(info, this.body, true);
  }

  /** obs₀ obs₁ … (concat) or obs₀ act₀ obs₁ … obsₙ (with actions), each newline-terminated. */
  private rebuildBody(t: Turns): string {
    const obs = t.observations;
    let body = '';
    if (this.options.mode === 'concat') {
      for (const o of obs) body += withNewline(o);
      return body;
    }
    // Invariant: one more observation than actions, oldest first.
    for (let i = 0; i < t.actions.length; i++) body += withNewline(obs[i]) + withNewline(t.actions[i]);
    return body + withNewline(obs[obs.length - 1]);
  }

  private renderChat(info: Info): string {
    const t = this.turns!;
    const obs = t.observations;
    const messages: ChatMessage[] = [];
    for (let i = 0; i < obs.length; i++) {
      const last = i === obs.length - 1;
      messages.push({ role: t.fromTool[i] ? 'tool' : 'user', content: last ? frame(info, obs[i]) : obs[i] });
      if (!last) messages.push({ role: 'assistant', content: t.actions[i] });
    }
    return this.options.chatTemplate!(messages);
  }

  meterState(meter: StateMeter): void {
    this.meter = meter;
    meter.add(this.held);
  }

  heldBytes(): number {
    return this.held;
  }

  private setHeld(n: number): void {
    const delta = n - this.held;
    this.held = n;
    if (delta !== 0) this.meter?.add(delta);
  }

  close(): Promise<void> {
    this.turns = undefined;
    this.body = '';
    this.setHeld(0);
    return super.close();
  }

  protected rewrap(inner: Env): HistoryObservation {
    return new HistoryObservation(inner, this.options);
  }

  protected copyStateTo(copy: this): void {
    const t = this.turns;
    copy.turns = t && { observations: t.observations.slice(), fromTool: t.fromTool.slice(), actions: t.actions.slice() };
    copy.body = this.body;
    // A spawned copy reports to no meter: it is not a handle's env.
    copy.held = this.held;
  }
}
