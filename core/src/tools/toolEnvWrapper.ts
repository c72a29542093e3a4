/**
 * The tool wrapper (GEM's ToolEnvWrapper). Each action is first offered to the tools, in order; the
 * first that finds its call in the action runs it, and the model sees only the tool's answer: the
 * inner env is not stepped, so tool turns do not use up the env's turns. An action with no tool call
 * (or any action once the tool budget is spent) goes to the env unchanged, so the env extracts its
 * own answer (\boxed{…}, <answer>…) from the full text.
 *
 * Rewards of a tool turn: `tool_reward`, plus `tool_success_reward` when the call succeeded; or,
 * when `tool_execute_error_reward` is set (negative, with the other two 0), that on a failed call.
 *
 * One deliberate difference from GEM: with several tools, GEM keeps looking after a tool that found
 * its call but failed, and a later tool that finds nothing then sends the action to the env although
 * the first call already ran. Here the first tool that finds its call owns the turn. With one tool
 * (every named wrapper) the two behave the same.
 */
import { GemError } from '../core/errors.ts';
import { Hints } from '../core/codeHint.ts';
import { Wrapper } from '../core/wrapper.ts';
import type { Env, Info, ResetOptions, ResetResult, SpawnOptions, StepResult } from '../core/env.ts';
import { executeAction, type TextTool, type ToolActionResult } from './tool.ts';

export interface ToolEnvOptions {
  toolReward?: number;
  toolSuccessReward?: number;
  toolExecuteErrorReward?: number;
  /** Tool calls allowed per episode; null for no limit (GEM's None). Default 10. */
  maxToolUses?: number | null;
  /** GEM's name of this stack entry (`python_tool`, …); defaults to `tool_env`. */
  wrapperName?: string;
  /** Close the tools when this wrapper closes (default true; spawned copies share and never close them). */
  ownsTools?: boolean;
}

export const MAX_TOOL_USE_MESSAGE = '\n\nReached the maximum number of tool use. Please output final answer directly.';

export class ToolEnvWrapper extends Wrapper {
  readonly wrapperName: string;
  readonly toolReward: number;
  readonly toolSuccessReward: number;
  readonly toolExecuteErrorReward: number;
  readonly maxToolUses: number | null;
  private toolUses = 0;
  private toolSuccesses = 0;
  private initialised?: Promise<void>;
  private readonly ownsTools: boolean;

  constructor(
    env: Env,
    readonly tools: readonly TextTool<any>[],
    opts: ToolEnvOptions = {},
  ) {
    super(env);
    if (!tools.length) throw new GemError('INVALID_OPTIONS', 'ToolEnvWrapper needs at least one tool.');
    this.toolReward = opts.toolReward ?? 0;
    this.toolSuccessReward = opts.toolSuccessReward ?? 0;
    this.toolExecuteErrorReward = opts.toolExecuteErrorReward ?? 0;
    this.maxToolUses = opts.maxToolUses === undefined ? 10 : opts.maxToolUses;
    this.wrapperName = opts.wrapperName ?? 'tool_env';
    this.ownsTools = opts.ownsTools ?? true;
    if (this.toolExecuteErrorReward !== 0 && (this.toolExecuteErrorReward > 0 || this.toolReward !== 0 || this.toolSuccessReward !== 0)) {
      throw new GemError(
        'INVALID_OPTIONS',
        'tool_execute_error_reward must be negative, and tool_reward and tool_success_reward must then be 0.',
        { tool_reward: this.toolReward, tool_success_reward: this.toolSuccessReward, tool_execute_error_reward: this.toolExecuteErrorReward },
      );
    }
    if (this.maxToolUses !== null && !(Number.isInteger(this.maxToolUses) && this.maxToolUses >= 0)) {
      const hints = new Hints();
      const none = hints.add({ kind: 'value', value: null });
      throw new GemError('INVALID_OPTIONS', `max_tool_uses must be a non-negative integer or ${none}, got ${String(this.maxToolUses)}.`, { hints: hints.list });
    }
  }

  /** The text appended to the first observation: every tool's instructions. */
  instructions(): string {
    const parts = this.tools.map((t) => t.instructions());
    return this.tools.length > 1 ? `Available tools:\n${parts.join('\n')}` : parts.join('\n');
  }

  private init(): Promise<void> {
    this.initialised ??= Promise.all(this.tools.map((t) => t.init?.())).then(() => undefined);
    return this.initialised;
  }

  private counters(): Info {
    return { tool_use_counter: this.toolUses, tool_success_counter: this.toolSuccesses };
  }

  async reset(opts?: ResetOptions): Promise<ResetResult> {
    await this.init();
    const r = await this.env.reset(opts);
    const info = {
      ...r.info,
      tool_use_counter: 0,
      prev_ep_tool_use_counter: this.toolUses,
      tool_success_counter: 0,
      prev_ep_tool_success_counter: this.toolSuccesses,
      use_tool: false,
    };
    this.toolUses = 0;
    this.toolSuccesses = 0;
    return { observation: `${r.observation}\n${this.instructions()}`, info };
  }

  private budgetLeft(): boolean {
    return this.maxToolUses === null || this.toolUses < this.maxToolUses;
  }

  /** The first tool that finds its call in `action`, with its result; undefined when none does. */
  private async tryTools(action: string): Promise<{ tool: TextTool<any>; result: ToolActionResult } | undefined> {
    for (const tool of this.tools) {
      const result = await executeAction(tool, action);
      if (result.isValid) return { tool, result };
    }
    return undefined;
  }

  async step(action: string): Promise<StepResult> {
    const hit = this.budgetLeft() ? await this.tryTools(action) : undefined;
    if (!hit) {
      const r = await this.env.step(action);
      return { ...r, info: { ...r.info, use_tool: r.info.use_tool === true, ...this.counters() } };
    }
    const { tool, result } = hit;
    this.toolUses += 1;
    let reward = this.toolReward;
    if (!result.hasError) {
      reward += this.toolSuccessReward;
      this.toolSuccesses += 1;
    } else if (this.toolExecuteErrorReward !== 0) {
      reward = this.toolExecuteErrorReward;
    }
    let observation = result.observation;
    if (this.maxToolUses !== null && this.toolUses === this.maxToolUses) observation += MAX_TOOL_USE_MESSAGE;
    return {
      observation,
      reward,
      terminated: false,
      truncated: false,
      info: { parsed_action: result.parsedAction, tool_type: tool.toolType, use_tool: true, ...this.counters() },
    };
  }

  spawn(opts: SpawnOptions = {}): Env {
    const copy = new ToolEnvWrapper(this.env.spawn(opts) as Env, this.tools, {
      toolReward: this.toolReward,
      toolSuccessReward: this.toolSuccessReward,
      toolExecuteErrorReward: this.toolExecuteErrorReward,
      maxToolUses: this.maxToolUses,
      wrapperName: this.wrapperName,
      ownsTools: false,
    });
    copy.initialised = this.initialised;
    if (opts.sameState) {
      copy.toolUses = this.toolUses;
      copy.toolSuccesses = this.toolSuccesses;
    }
    return copy;
  }

  /** Closes the inner env, then the tools if this wrapper owns them. */
  async close(): Promise<void> {
    await this.env.close();
    if (this.ownsTools) await Promise.all(this.tools.map((t) => t.close?.()));
  }

  toString(): string {
    return `<${this.wrapperName}${this.env.toString()}>`;
  }
}
