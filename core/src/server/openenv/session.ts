/**
 * One OpenEnv session = one gem-ts env, served through the same session layer as the ZeroMQ front
 * door: a ClientSession with its own tenancy scope (tenancy.ts), whose env is a one-env handle made
 * and closed by the op handlers (opHandlers.ts), so the same limits, quotas and catalogue overlays
 * apply. Steps and resets take their turn in that handle's in-order queue row by row, as the `batch`
 * op's rows do: when the turn is now and the env has sync twins, the row runs inline and its payload
 * is returned without a promise (a WebSocket message answered in the turn it arrived). Nothing here
 * touches a socket; openEnvServer.ts does.
 */
import { randomUUID } from 'node:crypto';
import { GemError } from '../../core/errors.ts';
import type { Env } from '../../core/env.ts';
import { Wrapper } from '../../core/wrapper.ts';
import type { TextTool } from '../../tools/tool.ts';
import { ToolEnvWrapper } from '../../tools/toolEnvWrapper.ts';
import { ClientSession } from '../clientSession.ts';
import type { OpHandlers } from '../opHandlers.ts';
import type { ServedPool } from '../servedPool.ts';
import type { ParsedRequest } from '../protocol/frames.ts';
import { REQUEST_SCHEMAS } from '../protocol/headers.ts';
import { PROTOCOL_VERSION, type RequestOp } from '../protocol/version.ts';
import type { SessionScope } from '../tenancy.ts';
import type { EachRowSink } from '../../vector/vectorEnvBase.ts';
import { choiceKey, noEnvChosen, stepPayload, toolListing, type EnvChoice, type EpisodeState } from './mapping.ts';
import type { StepPayload } from './wire.ts';

let nextRequestId = 1;
/** Log numbers of OpenEnv sessions (ClientSession's serial). */
let nextSerial = 1;

/** A request of protocol v1, checked by its own schema, as the ZeroMQ front door's parser would hand it over. */
function request(op: RequestOp, fields: Record<string, unknown>): ParsedRequest {
  const id = nextRequestId++;
  const parsed = REQUEST_SCHEMAS[op].safeParse({ v: PROTOCOL_VERSION, id, op, ...fields });
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || op}: ${i.message}`).join('; ');
    throw new GemError('INVALID_REQUEST', `Invalid ${op}: ${why}`);
  }
  return { op, id, header: parsed.data } as ParsedRequest;
}

/** The one env of a session's handle. */
const ENV_ZERO: readonly number[] = Object.freeze([0]);

/** Columns for one row, which a step or reset writes into (and an error, when the row failed). */
function oneRowSink(): EachRowSink {
  return {
    rows: { observations: [''], rewards: new Float64Array(1), terminated: [false], truncated: [false], infos: [{}] },
    at: ENV_ZERO,
    errors: [undefined],
  };
}

/** A reset's OpenEnv fields: the seed, the episode id (a fresh UUID when absent), per-reset options. */
export interface ResetOpts {
  seed?: number | null;
  episodeId?: string | null;
  resetOptions?: Record<string, unknown>;
}

/** What a tool call gave: a result (the tool ran, maybe failing in its own terms) or an error. */
export type ToolCallOutcome =
  | { result: { content: { type: 'text'; text: string }[]; isError: boolean; data: string } }
  | { error: { error_type: 'tool_not_found' | 'invalid_args' | 'execution_error'; message: string } };

export class OpenEnvSession {
  readonly client: ClientSession;
  /** A WebSocket is attached (at most one at a time). */
  attached = false;
  /** `openenv/session/close` came while a WebSocket was attached: end when it detaches. */
  closeWhenDetached = false;
  lastSeen = Date.now();
  /** Messages of this session being handled; a busy session is never idle. */
  inflight = 0;
  /** Set by the socket layer while a WebSocket is attached: closes it (idle timeout, server closing). */
  kick?: (why: string) => void;
  private handle?: number;
  private madeKey?: string;
  private choice?: EnvChoice;
  private episode: EpisodeState = { episode_id: null, step_count: 0, env_id: null, seed: null, total_reward: 0, done: false };
  private ended = false;
  /** The row columns of this session's steps and resets, reused while no other call holds them. */
  private sink?: EachRowSink;
  /** The episode's id is a fresh UUID not drawn yet (no one has read it). */
  private episodeIdToDraw = false;

  constructor(
    readonly id: string,
    scope: SessionScope,
    private readonly ops: OpHandlers,
    /** The env this session plays until a reset names another: the route's, else the server's default. */
    readonly fallback: EnvChoice | undefined,
  ) {
    // No resume secret is ever handed out: an OpenEnv session lives as long as its socket or its /mcp id.
    this.client = new ClientSession(nextSerial++, randomUUID(), scope);
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Whether the session's env is the one of `choice` already (so a reset needs no make). */
  holds(choice: EnvChoice): boolean {
    return !this.ended && this.handle !== undefined && (choice === this.choice || choiceKey(choice) === this.madeKey);
  }

  /** Makes the env of `choice` unless the session already holds it; a different choice replaces it. */
  async ensureEnv(choice: EnvChoice): Promise<void> {
    this.assertOpen();
    if (this.holds(choice)) return;
    await this.dropEnv();
    const made = await this.ops.handle(
      this.client,
      request('make', {
        env_ids: choice.envId,
        num_envs: 1,
        options: choice.options,
        wrappers: choice.wrappers,
        wrapper_options: choice.wrapperOptions,
        autoreset_mode: 'disabled',
      }),
    );
    this.handle = made.fields.handle as number;
    this.madeKey = choiceKey(choice);
    this.choice = choice;
    this.episode = { episode_id: null, step_count: 0, env_id: choice.envId, seed: null, total_reward: 0, done: false };
    this.episodeIdToDraw = false;
  }

  async reset(choice: EnvChoice | undefined, opts: ResetOpts = {}): Promise<StepPayload> {
    const wanted = choice ?? this.choice;
    if (!wanted) throw noEnvChosen();
    await this.ensureEnv(wanted);
    return this.resetHeld(wanted, opts);
  }

  /**
   * A reset of the env the session holds (`holds(choice)`), in its turn in the handle's in-order
   * queue: the payload at once when that turn was now and the env reset inline, else a promise.
   */
  resetHeld(choice: EnvChoice, opts: ResetOpts = {}): StepPayload | Promise<StepPayload> {
    this.assertOpen();
    const seed = opts.seed ?? null;
    const pool = this.pool();
    const into = this.takeSink();
    const waiting = pool.resetEachInOrder({ indices: ENV_ZERO as number[], seed: seed ?? undefined, options: opts.resetOptions }, into);
    if (waiting === undefined) return this.wasReset(into, choice, seed, opts.episodeId);
    return waiting.then(
      () => this.wasReset(into, choice, seed, opts.episodeId),
      (e: unknown) => this.failed(into, e),
    );
  }

  /** A step of the session's env, in its turn: the payload at once when it ran inline, else a promise. */
  step(action: string): StepPayload | Promise<StepPayload> {
    this.assertOpen();
    if (this.handle === undefined || this.episode.episode_id === null) {
      throw new GemError('RESET_NEEDED', 'Call reset before step: this session has no episode yet.');
    }
    const pool = this.pool();
    const into = this.takeSink();
    const waiting = pool.stepEachInOrder([action], ENV_ZERO as number[], into);
    if (waiting === undefined) return this.stepped(into);
    return waiting.then(
      () => this.stepped(into),
      (e: unknown) => this.failed(into, e),
    );
  }

  // (Methods, not closures per call: a session makes one call per message.)

  private wasReset(into: EachRowSink, choice: EnvChoice, seed: number | null, episodeId: string | null | undefined): StepPayload {
    const { observations, infos } = this.giveSink(into);
    // An episode id the client gave, else a fresh UUID, drawn when first read (state()).
    this.episode = { episode_id: episodeId ?? '', step_count: 0, env_id: choice.envId, seed, total_reward: 0, done: false };
    this.episodeIdToDraw = episodeId === undefined || episodeId === null;
    return stepPayload(observations[0], null, false, false, infos[0]);
  }

  private stepped(into: EachRowSink): StepPayload {
    const rows = this.giveSink(into);
    const reward = rows.rewards[0];
    const terminated = rows.terminated[0];
    const truncated = rows.truncated[0];
    this.episode.step_count += 1;
    this.episode.total_reward += reward;
    this.episode.done = terminated || truncated;
    return stepPayload(rows.observations[0], reward, terminated, truncated, rows.infos[0]);
  }

  private failed(into: EachRowSink, e: unknown): never {
    into.errors[0] = undefined;
    this.sink = into;
    throw e;
  }

  private pool(): ServedPool {
    return this.client.getHandle(this.handle!).pool;
  }

  /** The session's row columns, or fresh ones while another call holds them. */
  private takeSink(): EachRowSink {
    const sink = this.sink ?? oneRowSink();
    this.sink = undefined;
    return sink;
  }

  /**
   * The row a call wrote, to be read at once (the columns go back for the next call), or its error
   * thrown: the same error the handle's in-order step or reset would have rejected with.
   */
  private giveSink(into: EachRowSink): EachRowSink['rows'] {
    const e = into.errors[0];
    into.errors[0] = undefined;
    this.sink = into;
    if (e !== undefined) throw e;
    return into.rows;
  }

  /** The env the session holds or will make: the last one made, else the fallback. */
  get currentChoice(): EnvChoice | undefined {
    return this.choice ?? this.fallback;
  }

  state(): EpisodeState {
    if (this.episodeIdToDraw) {
      this.episode.episode_id = randomUUID();
      this.episodeIdToDraw = false;
    }
    return { ...this.episode, env_id: this.episode.env_id ?? this.choice?.envId ?? this.fallback?.envId ?? null };
  }

  get done(): boolean {
    return this.episode.done;
  }

  /** The tools of the env's tool wrappers, as OpenEnv lists them (none for an env without one). */
  async listTools(): Promise<ReturnType<typeof toolListing>[]> {
    return (await this.withTools((tools) => tools)).map(toolListing);
  }

  /**
   * Runs one tool of the env's tool wrappers directly, in the env's turn (after the steps already
   * queued): the call is not an env step, so it neither counts against the tool budget nor pays a reward.
   */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolCallOutcome> {
    return this.withTools(async (tools): Promise<ToolCallOutcome> => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) {
        const known = tools.map((t) => `'${t.name}'`).join(', ') || 'none (add a tool wrapper, e.g. wrappers: ["python_tool"])';
        return { error: { error_type: 'tool_not_found', message: `Tool not found: '${name}'. This env's tools: ${known}.` } };
      }
      const checked = tool.inputSchema.safeParse(args);
      if (!checked.success) {
        const why = checked.error.issues.map((i) => `${i.path.map(String).join('.') || 'arguments'}: ${i.message}`).join('; ');
        return { error: { error_type: 'invalid_args', message: `Invalid arguments for '${name}': ${why}` } };
      }
      try {
        const out = await tool.execute(checked.data);
        return { result: { content: [{ type: 'text', text: out.output }], isError: out.isError, data: out.output } };
      } catch (e) {
        return { error: { error_type: 'execution_error', message: `Tool '${name}' failed: ${e instanceof Error ? e.message : String(e)}` } };
      }
    });
  }

  private async withTools<T>(run: (tools: TextTool<any>[]) => Promise<T> | T): Promise<T> {
    this.assertOpen();
    if (this.handle === undefined) {
      const choice = this.choice ?? this.fallback;
      if (!choice) throw noEnvChosen();
      await this.ensureEnv(choice);
    }
    return this.client.getHandle(this.handle!).pool.withEnvsInOrder([0], (envs) => run(toolsOf(envs[0])));
  }

  /** Frees the env and everything the session holds (its tenancy scope included). */
  async close(why: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.client.ended = true;
    await this.ops.freeSession(this.client, why);
  }

  private async dropEnv(): Promise<void> {
    if (this.handle === undefined) return;
    const handle = this.handle;
    this.handle = undefined;
    this.madeKey = undefined;
    await this.ops.handle(this.client, request('close', { handle }));
  }

  private assertOpen(): void {
    if (this.ended) throw new GemError('ENV_CLOSED', 'This OpenEnv session is closed; open a new one.');
  }
}

/** The tools of every tool wrapper in an env's stack, outermost first. */
function toolsOf(env: Env<any, any>): TextTool<any>[] {
  const tools: TextTool<any>[] = [];
  for (let e: unknown = env; e instanceof Wrapper; e = e.env) {
    if (e instanceof ToolEnvWrapper) tools.push(...e.tools);
  }
  return tools;
}
