/**
 * An OpenEnv server as a gem-ts env (docs/interop.md, "An OpenEnv server as a gem-ts env"): each env
 * holds one WebSocket session with the server (connection.ts), opened by the first reset and reused
 * by every episode; reset and step are OpenEnv's `reset` and `step` messages; close sends `close`.
 *
 * The mapping is the reverse of gem-ts's own OpenEnv front door (server/openenv/mapping.ts):
 * - Action: the action text is sent as `{[action_field]: text}` (`message`, as OpenEnv's text envs
 *   and gem-ts's front door name it). With `action_format: 'json'` the text is a JSON object sent as
 *   the action itself, for envs whose actions are structured; text that is not a JSON object, or an
 *   action the server refuses (VALIDATION_ERROR), is a format error as in GEM: the observation says
 *   why, `invalid_action_reward` is paid and the episode ends (nothing was played on the server).
 * - Observation: the observation's `observation_field` (`text`) when it is a string, that field as
 *   JSON when it is not, the whole observation (less `metadata`) as JSON when it has no such field.
 * - Reward: the step's reward; null (OpenEnv's "no reward") is 0.
 * - Ends: `done`; `terminated` / `truncated` from the observation's own flags when it has them (gem-ts's
 *   front door sends them), else done means terminated.
 * - Info: the payload's `metadata` (gem-ts's info when the server is gem-ts).
 * - Tools (`tools: 'mcp'`): the remote env's MCP tools are offered as gem-ts's `mcp_tool` offers an
 *   MCP server's tools. Each reset sends OpenEnv's `list_tools` action on the same session and adds
 *   the tool-use instructions to the first observation; an action holding a
 *   `<tool_call><tool_name>NAME</tool_name><arguments>{JSON}</arguments></tool_call>` block is sent as
 *   OpenEnv's `call_tool` action, a step of the session whose reward and done are the env's, and the
 *   tool's result (or its error) is the next observation. A block whose arguments are not a JSON
 *   object is answered here (nothing is sent). Actions without a block are sent as above.
 */
import type { Env, Info, ResetOptions, ResetResult, SpawnOptions, StepResult } from '../../core/env.ts';
import { GemError } from '../../core/errors.ts';
import { isPlainObject } from '../../core/plainObject.ts';
import type { EnvSpec } from '../../core/spec.ts';
import { parseToolCall, renderMcpResult, toolCallInstructions, type McpCallArgs, type ToolCallSpec } from '../../tools/mcp/mcpTool.ts';
import type { McpCallResult } from '../../tools/mcp/mcpConnection.ts';
import type { ToolOutput } from '../../tools/tool.ts';
import { OpenEnvConnection, remoteError } from './connection.ts';
import type { ObservationPayload, Reply } from './wire.ts';
import { notOpenEnv, sessionUrl } from './wire.ts';

/** terminated / truncated of a payload: the observation's own flags when it has them (gem-ts's front door), else done is terminated. */
function endsOf(p: ObservationPayload): { terminated: boolean; truncated: boolean } {
  const flags = p.observation;
  const truncated = p.done && flags.truncated === true;
  return { terminated: p.done && (typeof flags.terminated === 'boolean' ? flags.terminated || !truncated : true), truncated };
}

export interface OpenEnvEnvOptions {
  url: string;
  action_field: string;
  action_format: 'text' | 'json';
  observation_field: string;
  reset_data: Record<string, unknown>;
  headers: Record<string, string>;
  connect_timeout_ms: number;
  message_timeout_ms: number;
  ping_interval_ms: number;
  invalid_action_reward: number;
  tools: 'none' | 'mcp';
}

interface Episode {
  /** The reset's data as sent; undefined when it had no seed (then it cannot be replayed). */
  resetData?: Record<string, unknown>;
  /** The actions played on the server, in order. */
  actions: Record<string, unknown>[];
}

export class OpenEnvEnv implements Env<string, string> {
  spec?: EnvSpec;
  private conn?: OpenEnvConnection;
  /**
   * The make seed, sent with the first reset that has none (for gem-ts's own envs, make(seed) then
   * reset() is reset(seed)); later unseeded resets send none, so the server's env goes on with its
   * own stream, as a local env does.
   */
  private pendingSeed?: number;
  private episode?: Episode;
  /** A spawn({sameState}) child replays its parent's episode before its first step. */
  private replay?: Episode;
  private closed = false;
  /** With `tools: 'mcp'`: the tools the server listed at the last reset, and this episode's tool calls. */
  private toolList: ToolCallSpec[] = [];
  private toolUses = 0;
  private toolSuccesses = 0;

  constructor(
    private readonly opts: OpenEnvEnvOptions,
    seed?: number,
  ) {
    this.pendingSeed = seed;
  }

  get unwrapped(): Env<unknown, unknown> {
    return this as unknown as Env<unknown, unknown>;
  }

  /** The session's connection; a new one when there is none or the last one failed or closed. */
  private connection(): OpenEnvConnection {
    if (!this.conn || this.conn.failure) {
      this.conn = new OpenEnvConnection({
        url: this.opts.url,
        wsUrl: sessionUrl(this.opts.url),
        headers: this.opts.headers,
        connectTimeoutMs: this.opts.connect_timeout_ms,
        messageTimeoutMs: this.opts.message_timeout_ms,
        pingIntervalMs: this.opts.ping_interval_ms,
      });
    }
    return this.conn;
  }

  private async ask(type: 'reset' | 'step', data: Record<string, unknown>, what: string): Promise<Reply> {
    return this.connection().request({ type, data }, what);
  }

  async reset(opts: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new GemError('ENV_CLOSED', 'Cannot reset a closed environment.');
    this.replay = undefined;
    const seed = opts.seed ?? this.pendingSeed;
    this.pendingSeed = undefined;
    const data: Record<string, unknown> = { ...this.opts.reset_data, ...(opts.options ?? {}) };
    if (seed !== undefined) data.seed = seed;
    // A session whose socket died (server restart, idle timeout) is reopened here, by connection().
    this.episode = undefined;
    const payload = this.observation(await this.ask('reset', data, 'reset'), 'reset');
    let observation = this.text(payload);
    let info = this.info(payload);
    if (this.opts.tools === 'mcp') {
      this.toolList = await this.listTools();
      this.toolUses = 0;
      this.toolSuccesses = 0;
      observation = `${observation}\n${toolCallInstructions(this.toolList)}`;
      info = { ...info, use_tool: false, ...this.counters() };
    }
    this.episode = { resetData: seed === undefined ? undefined : data, actions: [] };
    return { observation, info };
  }

  private counters(): Info {
    return { tool_use_counter: this.toolUses, tool_success_counter: this.toolSuccesses };
  }

  /** The session's MCP tools, by OpenEnv's `list_tools` action; an env without any is a configuration error. */
  private async listTools(): Promise<ToolCallSpec[]> {
    const url = this.opts.url;
    const reply = await this.ask('step', { type: 'list_tools' }, 'list_tools');
    if (reply.type === 'error' && reply.data.code === 'VALIDATION_ERROR') {
      throw new GemError('INVALID_OPTIONS', `tools: 'mcp', but the OpenEnv server at ${url} refused a list_tools action (${reply.data.message}): its env takes no MCP actions.`, { url });
    }
    const payload = this.observation(reply, 'list_tools');
    const listed = payload.observation.tools;
    if (!Array.isArray(listed)) throw notOpenEnv(url, `a list_tools observation without a tools list: ${JSON.stringify(payload.observation).slice(0, 120)}`);
    const tools = listed.filter(isPlainObject).flatMap((t): ToolCallSpec[] => {
      if (typeof t.name !== 'string') return [];
      const schema = t.input_schema ?? t.inputSchema;
      return [{ name: t.name, description: typeof t.description === 'string' ? t.description : '', parameters: isPlainObject(schema) ? schema : { type: 'object' } }];
    });
    if (!tools.length) {
      const meta = payload.observation.metadata;
      const why = isPlainObject(meta) && typeof meta.error === 'string' ? ` (the server said: ${meta.error})` : '';
      throw new GemError('INVALID_OPTIONS', `tools: 'mcp', but the OpenEnv server at ${url} lists no MCP tools${why}.`, { url });
    }
    return tools.sort((a, b) => a.name.localeCompare(b.name));
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new GemError('ENV_CLOSED', 'Cannot step a closed environment.');
    if (this.replay) await this.replayEpisode();
    if (!this.episode) throw new GemError('RESET_NEEDED', 'Cannot step before reset() (or after the OpenEnv session was lost).');
    // The episode lived in a session that is gone: say why, rather than step a new session.
    if (this.conn?.failure) {
      this.episode = undefined;
      throw this.conn.failure;
    }
    const call = this.opts.tools === 'mcp' && typeof action === 'string' ? parseToolCall(action) : undefined;
    if (call?.kind === 'invalid') return this.toolTurn(call.parsedAction, { output: call.observation, isError: true });
    const data = call?.kind === 'call' ? { type: 'call_tool', tool_name: call.args.name, arguments: call.args.arguments } : this.actionData(action);
    if (typeof data === 'string') return this.formatError(data);
    let reply: Reply;
    try {
      reply = await this.ask('step', data, call?.kind === 'call' ? `call_tool '${call.args.name}'` : 'step');
    } catch (e) {
      if (this.conn?.failure) this.episode = undefined;
      throw e;
    }
    if (reply.type === 'error' && reply.data.code === 'VALIDATION_ERROR' && (this.opts.action_format === 'json' || this.opts.tools === 'mcp')) {
      return this.formatError(`the server refused the action: ${reply.data.message}`);
    }
    const payload = this.observation(reply, 'step');
    this.episode.actions.push(data);
    if (call?.kind === 'call') return this.toolTurn(call.parsedAction, this.toolOutput(call.args, payload), payload);
    const info = this.opts.tools === 'mcp' ? { ...this.info(payload), use_tool: false, ...this.counters() } : this.info(payload);
    return { observation: this.text(payload), reward: payload.reward ?? 0, ...endsOf(payload), info };
  }

  /**
   * A tool turn: the tool's output is the observation; reward and done are the server's step's when
   * the call reached it (`payload`), else 0 and not done (a call that could not be sent).
   */
  private toolTurn(parsedAction: string, out: ToolOutput, payload?: ObservationPayload): StepResult {
    this.toolUses += 1;
    if (!out.isError) this.toolSuccesses += 1;
    const info: Info = {
      ...(payload ? this.info(payload) : {}),
      parsed_action: parsedAction,
      tool_type: 'mcp',
      use_tool: true,
      ...this.counters(),
      ...(out.isError ? { tool_error: out.output } : {}),
    };
    const ends = payload ? endsOf(payload) : { terminated: false, truncated: false };
    return { observation: out.output, reward: payload?.reward ?? 0, ...ends, info };
  }

  /** The observation of a `call_tool` step (OpenEnv's CallToolObservation: `result` or `error`) as a tool's output. */
  private toolOutput(args: McpCallArgs, payload: ObservationPayload): ToolOutput {
    const { result, error } = payload.observation;
    if (isPlainObject(error)) {
      const kind = typeof error.error_type === 'string' ? error.error_type : 'error';
      const known = kind === 'tool_not_found' ? ` Available tools: ${this.toolList.map((t) => t.name).join(', ')}` : '';
      return { output: `[Tool error (${kind}) calling '${args.name}': ${String(error.message ?? 'no message')}]${known}`, isError: true };
    }
    if (isPlainObject(result) && Array.isArray(result.content)) {
      // OpenEnv's server sends FastMCP's CallToolResult with snake_case fields; gem-ts's front door MCP's camelCase.
      const structured = result.structuredContent ?? result.structured_content;
      return renderMcpResult({
        content: result.content.filter((c): c is McpCallResult['content'][number] => isPlainObject(c) && typeof c.type === 'string'),
        structuredContent: isPlainObject(structured) ? structured : undefined,
        isError: result.isError === true || result.is_error === true,
      });
    }
    if (result === null || result === undefined) return renderMcpResult({ content: [] });
    return renderMcpResult({ content: [{ type: 'text', text: typeof result === 'string' ? result : JSON.stringify(result) }] });
  }

  /** The action object of a text, or why it is not one. */
  private actionData(action: string): Record<string, unknown> | string {
    if (typeof action !== 'string') return `the action must be text, got ${typeof action}`;
    if (this.opts.action_format === 'text') return { [this.opts.action_field]: action };
    let parsed: unknown;
    try {
      parsed = JSON.parse(action);
    } catch (e) {
      return `the action is not JSON (${(e as Error).message})`;
    }
    return isPlainObject(parsed) ? parsed : 'the action must be a JSON object';
  }

  private formatError(why: string): StepResult {
    this.episode = undefined;
    const takes =
      this.opts.tools === 'mcp'
        ? 'This env takes tool calls (<tool_call><tool_name>NAME</tool_name><arguments>{...}</arguments></tool_call>)'
        : "This env takes one JSON object, the OpenEnv action (its fields: the server's /schema)";
    return {
      observation: `Invalid action: ${why}. ${takes}. The episode is over.`,
      reward: this.opts.invalid_action_reward,
      terminated: true,
      truncated: false,
      info: { invalid_action: why },
    };
  }

  private observation(reply: Reply, what: string): ObservationPayload {
    if (reply.type === 'observation') return reply.data;
    if (reply.type === 'error') throw remoteError(this.opts.url, what, reply.data);
    throw new GemError('PROTOCOL_ERROR', `The OpenEnv server at ${this.opts.url} answered ${what} with a '${reply.type}' reply.`, { url: this.opts.url });
  }

  private text(p: ObservationPayload): string {
    const obs = p.observation;
    const field = obs[this.opts.observation_field];
    if (typeof field === 'string') return field;
    if (field !== undefined) return JSON.stringify(field);
    const { metadata: _metadata, ...rest } = obs;
    return JSON.stringify(rest);
  }

  private info(p: ObservationPayload): Info {
    const nested = isPlainObject(p.observation.metadata) ? p.observation.metadata : {};
    return { ...nested, ...(p.metadata ?? {}) };
  }

  /** The server's `state()` of the session (OpenEnv's State: episode_id, step_count, …). */
  async state(): Promise<Record<string, unknown>> {
    if (!this.conn || this.conn.failure) throw new GemError('RESET_NEEDED', 'No OpenEnv session: reset first.');
    const reply = await this.conn.request({ type: 'state' }, 'state');
    if (reply.type === 'state') return reply.data;
    if (reply.type === 'error') throw remoteError(this.opts.url, 'state', reply.data);
    throw new GemError('PROTOCOL_ERROR', `The OpenEnv server at ${this.opts.url} answered state with a '${reply.type}' reply.`, { url: this.opts.url });
  }

  private async replayEpisode(): Promise<void> {
    const ep = this.replay!;
    this.replay = undefined;
    this.observation(await this.ask('reset', ep.resetData!, 'reset (replaying the parent episode)'), 'reset');
    this.episode = { resetData: ep.resetData, actions: [] };
    for (const a of ep.actions) {
      this.observation(await this.ask('step', a, 'step (replaying the parent episode)'), 'step');
      this.episode.actions.push(a);
    }
  }

  sampleRandomAction(): string {
    return this.opts.action_format === 'json' ? '{}' : '';
  }

  /**
   * A new env on a session of its own (its first reset sends `opts.seed`, if given). With `sameState`, the copy first replays this episode (its
   * seeded reset and its actions) on its session: the same state when the server's env is
   * deterministic under a seed. An unseeded episode cannot be replayed (NOT_SUPPORTED).
   */
  spawn(opts: SpawnOptions = {}): Env<string, string> {
    const copy = new OpenEnvEnv(this.opts);
    copy.spec = this.spec;
    copy.pendingSeed = opts.seed;
    copy.toolList = this.toolList;
    if (opts.sameState && this.episode) {
      if (!this.episode.resetData) {
        throw new GemError('NOT_SUPPORTED', `spawn({sameState}) replays the episode on a new OpenEnv session, which needs a seeded reset (${this.opts.url}).`);
      }
      copy.replay = { resetData: this.episode.resetData, actions: [...this.episode.actions] };
      copy.toolUses = this.toolUses;
      copy.toolSuccesses = this.toolSuccesses;
    }
    return copy;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.conn?.close();
  }

  toString(): string {
    return `<${this.spec?.id ?? 'openenv'} ${this.opts.url}>`;
  }
}
