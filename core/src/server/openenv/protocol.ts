/**
 * The OpenEnv front door without its sockets: routes, sessions, capacity, auth and idle sweeps, and
 * every request and message answered as OpenEnv 0.10's server answers it (wire.ts). The socket layer
 * (openEnvServer.ts) only moves text; tests drive this class directly.
 *
 * Routes, at the root or under `/envs/<env id>` (the base URL a client is given picks the env):
 *   GET  /health /schema /metadata /state      POST /reset /step /mcp      WebSocket /ws /mcp
 * A WebSocket `/ws` session is one gem-ts env; `?session_id=` attaches to a session made by
 * `openenv/session/create` on `/mcp` (MCPToolClient's way), so tools and steps share the env.
 * Plain HTTP `/reset` and `/step` are stateless, as in OpenEnv: each plays on a fresh env, then frees it.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { GemError, isGemError } from '../../core/errors.ts';
import { isPlainObject, onlyKeys } from '../../core/plainObject.ts';
import { defaultWrappers } from '../../envs/defaultWrappers.ts';
import { tokenMatches } from '../auth.ts';
import { silentLogger, type Logger } from '../logger.ts';
import { OpHandlers } from '../opHandlers.ts';
import { DEFAULT_LIMITS, type ServerLimits } from '../protocol/version.ts';
import type { ServerOptions } from '../server.ts';
import { Tenancy } from '../tenancy.ts';
import { chooseEnv, httpStatusFor, noEnvChosen, schemaDocument, toolPayload, wsErrorFor, type EnvChoice } from './mapping.ts';
import { DEFAULT_MAX_SESSIONS } from './flags.ts';
import { OpenEnvSession, type ResetOpts, type ToolCallOutcome } from './session.ts';
import {
  CallToolActionSchema,
  describeValidation,
  HttpStepSchema,
  ListToolsActionSchema,
  ResetDataSchema,
  RPC_ERROR,
  rpcError,
  rpcResult,
  RpcRequestSchema,
  TextActionSchema,
  validationDetail,
  WS_ERROR,
  wsError,
  WsMessageSchemas,
  type ResetData,
  type RpcResponse,
  type StepPayload,
  type WsMessageType,
  type WsReply,
} from './wire.ts';

/**
 * The ZeroMQ front door's options but its transport: the same catalog, wrappers, limits (with
 * `idle_timeout_ms` freeing silent sessions) and auth token, which every route but /health then
 * needs as `Authorization: Bearer <token>`.
 */
export interface OpenEnvOptions extends Omit<ServerOptions, 'transport'> {
  /** The env a session plays when neither its route nor its reset names one (`--openenv-env`). */
  defaultEnv?: EnvChoice;
  /** Sessions open at once (OpenEnv's max_concurrent_envs); more get CAPACITY_REACHED. */
  maxSessions?: number;
  /**
   * Another front door's tenancy and op handlers, to share one session layer (its `shared/` names,
   * its totals); by default this door builds its own over the same catalog, wrappers and limits.
   */
  sessionLayer?: { tenancy: Tenancy; ops: OpHandlers };
}

export const ENDPOINTS = ['ws', 'mcp', 'reset', 'step', 'state', 'health', 'schema', 'metadata'] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface Route {
  endpoint: Endpoint;
  /** The env id of an `/envs/<id>/…` route. */
  envId?: string;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** What the socket layer does after a WebSocket message: send `reply` (if any), then close when asked. */
export interface WsOutcome {
  reply?: WsReply | RpcResponse;
  close?: boolean;
}

const ENVS_PREFIX = '/envs/';

/** `/health`, `/envs/game:Foo-v0/ws`, `/envs/shared/custom:Bar-v0/reset` → the endpoint and env id. */
export function parseRoute(pathname: string): Route | undefined {
  let envId: string | undefined;
  let rest = pathname;
  if (pathname.startsWith(ENVS_PREFIX)) {
    const cut = pathname.lastIndexOf('/');
    if (cut <= ENVS_PREFIX.length) return undefined;
    try {
      envId = decodeURIComponent(pathname.slice(ENVS_PREFIX.length, cut));
    } catch {
      return undefined;
    }
    rest = pathname.slice(cut);
  }
  const endpoint = rest.slice(1);
  if (!(ENDPOINTS as readonly string[]).includes(endpoint)) return undefined;
  return { endpoint: endpoint as Endpoint, envId };
}

export class OpenEnvProtocol {
  readonly limits: ServerLimits;
  readonly log: Logger;
  readonly maxSessions: number;
  private readonly tenancy: Tenancy;
  private readonly ops: OpHandlers;
  private readonly sessions = new Map<string, OpenEnvSession>();
  private readonly startedAt = Date.now();
  private sweepTimer?: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly opts: OpenEnvOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.log = opts.logger ?? silentLogger();
    this.maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.tenancy = opts.sessionLayer?.tenancy ?? new Tenancy(opts.catalog, this.limits, opts.wrappers ?? defaultWrappers());
    this.ops = opts.sessionLayer?.ops ?? new OpHandlers({
      tenancy: this.tenancy,
      limits: this.limits,
      log: this.log,
      makePool: opts.makePool,
      serverInfo: () => ({ name: 'gem-ts', version: 'openenv', node: process.version, pid: process.pid }),
      stats: () => ({ openenv_sessions: this.sessions.size, uptime_s: (Date.now() - this.startedAt) / 1000 }),
      endSession: (s) => this.ops.freeSession(s, 'closed'),
      // Only the ZeroMQ front door registers client-served envs; nothing here calls back a client.
      sendToClient: () => undefined,
    });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Starts freeing sessions idle for longer than idle_timeout_ms. */
  startSweeping(): void {
    if (this.sweepTimer) return;
    const every = Math.max(50, Math.min(1000, Math.floor(this.limits.idle_timeout_ms / 4)));
    this.sweepTimer = setInterval(() => this.sweepIdle(), every);
    this.sweepTimer.unref();
  }

  /** Whether a request may go on: /health always; the rest with the token when there is one. */
  authorized(endpoint: Endpoint, authorization: string | undefined): boolean {
    if (this.opts.authToken === undefined || endpoint === 'health') return true;
    const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
    return m !== null && tokenMatches(this.opts.authToken, m[1].trim());
  }

  /** The env a route plays when a reset names none: its own id (with the default's options if it is the default's id), else the default. */
  fallbackFor(route: Route): EnvChoice | undefined {
    const def = this.opts.defaultEnv;
    if (route.envId === undefined) return def;
    return def && def.envId === route.envId ? def : { envId: route.envId };
  }

  // ── sessions ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A new session for `route`. Its env is made by the first reset (or tool listing), which may bring
   * the make options the env needs (a math env's dataset); an unknown id fails there as FACTORY_ERROR.
   * Throws CapacityError at max_sessions.
   */
  createSession(route: Route): OpenEnvSession {
    if (this.closing) throw new GemError('SERVER_UNAVAILABLE', 'The server is closing.');
    if (this.sessions.size >= this.maxSessions) throw new CapacityError(this.sessions.size, this.maxSessions);
    const session = new OpenEnvSession(randomUUID(), this.tenancy.newScope(), this.ops, this.fallbackFor(route));
    this.sessions.set(session.id, session);
    return session;
  }

  getSession(id: string): OpenEnvSession | undefined {
    return this.sessions.get(id);
  }

  async endSession(session: OpenEnvSession, why: string): Promise<void> {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    session.kick?.(why);
    await session.close(why);
  }

  /**
   * A WebSocket on `/ws`: a fresh session, or with `session_id` the existing one (made on `/mcp`),
   * which stays after the socket goes unless `openenv/session/close` asked for its end meanwhile.
   */
  openWs(route: Route, sessionId: string | null): { session: OpenEnvSession; owned: boolean } | { error: WsReply } {
    if (sessionId) {
      const s = this.sessions.get(sessionId);
      if (!s) return { error: wsError(WS_ERROR.SESSION_ERROR, `Unknown session_id: ${sessionId}`) };
      if (s.attached) return { error: wsError(WS_ERROR.SESSION_ERROR, `Session ${sessionId} already has an attached WebSocket`) };
      s.attached = true;
      s.lastSeen = Date.now();
      return { session: s, owned: false };
    }
    try {
      const session = this.createSession(route);
      session.attached = true;
      return { session, owned: true };
    } catch (e) {
      return { error: this.sessionFailure(e) };
    }
  }

  /** The socket of `session` went away. */
  async closeWs(session: OpenEnvSession, owned: boolean): Promise<void> {
    session.attached = false;
    session.kick = undefined;
    if (owned || session.closeWhenDetached) await this.endSession(session, 'WebSocket closed');
  }

  /**
   * One text message on `/ws`, answered in order by the caller (one at a time per socket): the outcome
   * itself when the message was answered in this turn (a step or reset whose env ran inline, a bad
   * message), else a promise of it. Never throws or rejects.
   */
  onWsMessage(session: OpenEnvSession, text: string): WsOutcome | Promise<WsOutcome> {
    session.lastSeen = Date.now();
    session.inflight++;
    let out: WsOutcome | Promise<WsOutcome>;
    try {
      out = this.wsMessage(session, text);
    } catch (e) {
      out = this.unforeseen(e);
    }
    if (out instanceof Promise) {
      return out.then(
        (o) => settled(session, o),
        (e: unknown) => settled(session, this.unforeseen(e)),
      );
    }
    return settled(session, out);
  }

  /** Nothing a client sends may end its socket's loop: an unforeseen failure is an error frame. */
  private unforeseen(e: unknown): WsOutcome {
    this.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'OpenEnv message failed');
    return { reply: wsErrorReply(e, 'run') };
  }

  private wsMessage(session: OpenEnvSession, text: string): WsOutcome | Promise<WsOutcome> {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      return { reply: wsError(WS_ERROR.INVALID_JSON, `Invalid JSON: ${(e as Error).message}`) };
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return { reply: wsError(WS_ERROR.VALIDATION_ERROR, "Invalid message: a message is a JSON object with a 'type'.", { errors: [] }) };
    }
    const type = (raw as { type?: unknown }).type;
    // The two messages of a rollout, in their plain shapes, skip the schemas (which would accept
    // them as they are); any other shape goes through the schemas and gets their errors.
    if (type === 'step') {
      const message = plainStepText(raw as Record<string, unknown>);
      if (message !== undefined) return wrapReply(observationOf(session, message));
    } else if (type === 'reset') {
      const plain = plainReset(raw as Record<string, unknown>);
      const choice = plain && session.currentChoice;
      if (plain && choice && session.holds(choice)) return wrapReply(observationOf(session, undefined, choice, plain));
    }
    return this.wsChecked(session, raw, type);
  }

  /** A message checked by its schema (every shape but the plain step and reset of a held env). */
  private async wsChecked(session: OpenEnvSession, raw: object, type: unknown): Promise<WsOutcome> {
    if (typeof type !== 'string' || !Object.hasOwn(WsMessageSchemas, type)) {
      const known = Object.keys(WsMessageSchemas).join(', ');
      return { reply: wsError(WS_ERROR.UNKNOWN_TYPE, `Unknown message type: ${typeof type === 'string' ? type.slice(0, 64) : String(type)} (known: ${known})`) };
    }
    const parsed = WsMessageSchemas[type as WsMessageType].safeParse(raw);
    if (!parsed.success) return { reply: invalid(parsed.error, `'${type}' message`, 'message') };
    const msg = parsed.data as { type: WsMessageType; data?: Record<string, unknown> };
    switch (msg.type) {
      case 'reset':
        return { reply: await this.wsReset(session, msg.data ?? {}) };
      case 'step':
        return { reply: await this.wsStep(session, msg.data ?? {}) };
      case 'state':
        return { reply: { type: 'state', data: { ...session.state() } } };
      case 'close':
        return { close: true };
      case 'mcp':
        return { reply: { type: 'mcp', data: await this.rpc(msg.data, { session, route: { endpoint: 'ws' } }) } };
    }
  }

  private async wsReset(session: OpenEnvSession, data: Record<string, unknown>): Promise<WsReply> {
    const parsed = ResetDataSchema.safeParse(data);
    if (!parsed.success) return invalid(parsed.error, 'reset data', 'data');
    const choice = this.choiceFor(parsed.data, session.currentChoice);
    if (!choice) return wsErrorReply(noEnvChosen(), 'run');
    try {
      await session.ensureEnv(choice);
    } catch (e) {
      return wsErrorReply(e, 'make');
    }
    return observationOf(session, undefined, choice, { seed: parsed.data.seed, episodeId: parsed.data.episode_id, resetOptions: parsed.data.reset_options });
  }

  private async wsStep(session: OpenEnvSession, action: Record<string, unknown>): Promise<WsReply> {
    try {
      const result = await this.act(session, action);
      return result instanceof Error ? invalid(result, 'action', 'data') : { type: 'observation', data: result };
    } catch (e) {
      return wsErrorReply(e, 'run');
    }
  }

  /** One action on a session: text, or a tool listing or call; a ZodError when it is none of them. */
  private async act(session: OpenEnvSession, action: Record<string, unknown>): Promise<StepPayload | z.ZodError> {
    if (action.type === 'list_tools') {
      const p = ListToolsActionSchema.safeParse(action);
      if (!p.success) return p.error;
      return toolPayload({ tools: await session.listTools() }, session.done);
    }
    if (action.type === 'call_tool') {
      const p = CallToolActionSchema.safeParse(action);
      if (!p.success) return p.error;
      const out = await session.callTool(p.data.tool_name, p.data.arguments);
      return toolPayload({ tool_name: p.data.tool_name, result: 'result' in out ? out.result : null, error: 'error' in out ? out.error : null }, session.done);
    }
    const p = TextActionSchema.safeParse(action);
    if (!p.success) return p.error;
    return session.step(p.data.message);
  }

  /** The env a reset plays: its own env fields over the session's current env; the current one when it names none. */
  private choiceFor(data: ResetData, current: EnvChoice | undefined): EnvChoice | undefined {
    const namesEnv = data.env_id !== undefined || data.options !== undefined || data.wrappers !== undefined || data.wrapper_options !== undefined;
    return namesEnv ? chooseEnv(data, current) : current;
  }

  private sessionFailure(e: unknown): WsReply {
    if (e instanceof CapacityError) {
      return wsError(WS_ERROR.CAPACITY_REACHED, e.message, { active_sessions: e.active, max_sessions: e.max });
    }
    return wsErrorReply(e, 'run');
  }

  // ── JSON-RPC (/mcp over HTTP, /mcp over WebSocket, and 'mcp' messages on /ws) ─────────────────

  /** One JSON-RPC request; `session` is the one of the WebSocket it came on, if any. */
  async rpc(raw: unknown, ctx: { session?: OpenEnvSession; route: Route }): Promise<RpcResponse> {
    const parsed = RpcRequestSchema.safeParse(raw);
    const rawId = (raw as { id?: unknown } | null)?.id;
    if (!parsed.success) {
      const id = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;
      return rpcError(id, RPC_ERROR.INVALID_REQUEST, describeValidation(parsed.error, 'request'));
    }
    const { method, params, id } = parsed.data;
    try {
      switch (method) {
        case 'openenv/session/create':
          return rpcResult(id, { session_id: ctx.session ? ctx.session.id : this.createSession(ctx.route).id });
        case 'openenv/session/close':
          return await this.rpcSessionClose(id, params, ctx.session);
        case 'tools/list':
          return await this.withRpcSession(id, params, ctx, async (s) => rpcResult(id, { tools: await s.listTools() }));
        case 'tools/call': {
          const name = params.name;
          if (typeof name !== 'string' || name.length === 0) return rpcError(id, RPC_ERROR.INVALID_PARAMS, "Missing 'name' in params");
          const args = params.arguments ?? {};
          if (typeof args !== 'object' || args === null || Array.isArray(args)) {
            return rpcError(id, RPC_ERROR.INVALID_PARAMS, "'arguments' must be an object");
          }
          return await this.withRpcSession(id, params, ctx, async (s) => rpcToolResult(id, await s.callTool(name, args as Record<string, unknown>)));
        }
        default:
          return rpcError(id, RPC_ERROR.METHOD_NOT_FOUND, `Method not found: ${method}`);
      }
    } catch (e) {
      if (e instanceof CapacityError) return rpcError(id, RPC_ERROR.SERVER_ERROR, e.message, { active_sessions: e.active, max_sessions: e.max });
      return rpcError(id, RPC_ERROR.INTERNAL_ERROR, e instanceof Error ? e.message : String(e), gemData(e));
    }
  }

  private async rpcSessionClose(id: string | number | null | undefined, params: Record<string, unknown>, own: OpenEnvSession | undefined): Promise<RpcResponse> {
    const target = params.session_id;
    if (typeof target !== 'string' || !target) return rpcError(id, RPC_ERROR.INVALID_PARAMS, "Invalid params - 'session_id' is required");
    if (own && own.id === target) return rpcError(id, RPC_ERROR.INVALID_REQUEST, 'Cannot close active WebSocket-managed session via MCP method');
    const s = this.sessions.get(target);
    if (!s) return rpcError(id, RPC_ERROR.INVALID_PARAMS, `Unknown session_id: ${target}`);
    if (s.attached) {
      s.closeWhenDetached = true;
      return rpcResult(id, { session_id: target, closed: false, closing: true });
    }
    await this.endSession(s, 'openenv/session/close');
    return rpcResult(id, { session_id: target, closed: true });
  }

  /** Runs `run` on the request's session: the socket's, the one `session_id` names, or a fresh one freed after. */
  private async withRpcSession(
    id: string | number | null | undefined,
    params: Record<string, unknown>,
    ctx: { session?: OpenEnvSession; route: Route },
    run: (s: OpenEnvSession) => Promise<RpcResponse>,
  ): Promise<RpcResponse> {
    if (ctx.session) return run(ctx.session);
    const wanted = params.session_id;
    if (typeof wanted === 'string' && wanted) {
      const s = this.sessions.get(wanted);
      if (!s) return rpcError(id, RPC_ERROR.INVALID_PARAMS, `Unknown session_id: ${wanted}`);
      s.lastSeen = Date.now();
      s.inflight++;
      try {
        return await run(s);
      } finally {
        s.inflight--;
        s.lastSeen = Date.now();
      }
    }
    const temp = this.createSession(ctx.route);
    try {
      return await run(temp);
    } finally {
      await this.endSession(temp, 'one MCP request done');
    }
  }

  // ── plain HTTP ────────────────────────────────────────────────────────────────────────────────

  /** One HTTP request (already authorized); `body` is the raw text of a POST. */
  async http(method: string, route: Route, body: string | undefined): Promise<HttpAnswer> {
    const post = route.endpoint === 'reset' || route.endpoint === 'step' || route.endpoint === 'mcp';
    if (route.endpoint === 'ws') return { status: 426, body: { detail: 'This route is a WebSocket: connect with an OpenEnv client (ws://…/ws).' } };
    if ((post && method !== 'POST') || (!post && method !== 'GET' && method !== 'HEAD')) return { status: 405, body: { detail: 'Method Not Allowed' } };
    switch (route.endpoint) {
      case 'health':
        return { status: 200, body: { status: 'healthy' } };
      case 'schema':
        return { status: 200, body: schemaDocument() };
      case 'metadata':
        return this.metadata(route);
      case 'state': {
        const choice = this.fallbackFor(route);
        return { status: 200, body: { episode_id: null, step_count: 0, env_id: choice?.envId ?? null, seed: null, total_reward: 0, done: false } };
      }
      case 'mcp': {
        let raw: unknown;
        try {
          raw = JSON.parse(body ?? '');
        } catch {
          return { status: 200, body: rpcError(null, RPC_ERROR.PARSE_ERROR, 'Parse error') };
        }
        return { status: 200, body: await this.rpc(raw, { route }) };
      }
      default:
        return this.httpPlay(route, body);
    }
  }

  private metadata(route: Route): HttpAnswer {
    const choice = this.fallbackFor(route);
    let description = 'gem-ts: GEM environments served over the OpenEnv protocol. Pick an env with /envs/<env id> or reset(env_id=...).';
    if (choice) {
      try {
        description = this.tenancy.sharedEnvs.get(choice.envId).description;
      } catch (e) {
        return { status: httpStatusFor(e), body: httpDetail(e) };
      }
    }
    return { status: 200, body: { name: choice?.envId ?? 'gem-ts', description, readme_content: null, version: null, author: 'gem-ts', documentation_url: null } };
  }

  /** Stateless `/reset` and `/step`: a fresh env for the one request. */
  private async httpPlay(route: Route, body: string | undefined): Promise<HttpAnswer> {
    let raw: unknown = {};
    if (body !== undefined && body.trim() !== '') {
      try {
        raw = JSON.parse(body);
      } catch (e) {
        return { status: 422, body: { detail: [{ type: 'json_invalid', loc: ['body'], msg: `JSON decode error: ${(e as Error).message}` }] } };
      }
    } else if (route.endpoint === 'step') {
      return { status: 422, body: { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required' }] } };
    }
    const parsed = route.endpoint === 'reset' ? ResetDataSchema.safeParse(raw) : HttpStepSchema.safeParse(raw);
    if (!parsed.success) return { status: 422, body: { detail: validationDetail(parsed.error, 'body') } };
    const data = parsed.data as ResetData & { action?: Record<string, unknown> };
    const choice = this.choiceFor(data, this.fallbackFor(route));
    if (!choice) return { status: 422, body: httpDetail(noEnvChosen()) };
    let session: OpenEnvSession;
    try {
      session = this.createSession(route);
    } catch (e) {
      return { status: e instanceof CapacityError ? 503 : httpStatusFor(e), body: httpDetail(e) };
    }
    try {
      await session.ensureEnv(choice);
      const first = await session.reset(choice, { seed: data.seed, episodeId: data.episode_id, resetOptions: data.reset_options });
      if (route.endpoint === 'reset') return { status: 200, body: { ...first, metadata: first.metadata ?? null } };
      const result = await this.act(session, data.action!);
      if (!(result instanceof Error)) return { status: 200, body: { ...result, metadata: result.metadata ?? null } };
      return { status: 422, body: { detail: validationDetail(result, 'body').map((d) => ({ ...d, loc: ['body', 'action', ...d.loc.slice(1)] })) } };
    } catch (e) {
      return { status: httpStatusFor(e), body: httpDetail(e) };
    } finally {
      await this.endSession(session, 'HTTP request done');
    }
  }

  // ── lifetime ──────────────────────────────────────────────────────────────────────────────────

  private sweepIdle(): void {
    const now = Date.now();
    for (const s of this.sessions.values()) {
      if (s.inflight > 0 || now - s.lastSeen < this.limits.idle_timeout_ms) continue;
      this.log.info({ session: s.id }, 'freeing an idle OpenEnv session');
      void this.endSession(s, `idle for ${now - s.lastSeen} ms`);
    }
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await Promise.allSettled([...this.sessions.values()].map((s) => this.endSession(s, 'server closing')));
  }
}

/** The server holds max_sessions sessions already. */
export class CapacityError extends Error {
  constructor(
    readonly active: number,
    readonly max: number,
  ) {
    super(`Server at capacity: ${active} of ${max} OpenEnv sessions are open (the operator raises it with gem-ts serve --openenv-max-sessions).`);
  }
}

function settled(session: OpenEnvSession, outcome: WsOutcome): WsOutcome {
  session.inflight--;
  session.lastSeen = Date.now();
  return outcome;
}

function wrapReply(reply: WsReply | Promise<WsReply>): WsOutcome | Promise<WsOutcome> {
  return reply instanceof Promise ? reply.then((r) => ({ reply: r })) : { reply };
}

/**
 * The observation reply of a text step (`choice` undefined) or of a reset of the env the session
 * holds: at once when the env ran inline, else a promise; a failure is an error frame ('run').
 */
function observationOf(session: OpenEnvSession, text: string | undefined, choice?: EnvChoice, reset?: ResetOpts): WsReply | Promise<WsReply> {
  let data: StepPayload | Promise<StepPayload>;
  try {
    data = choice === undefined ? session.step(text!) : session.resetHeld(choice, reset);
  } catch (e) {
    return wsErrorReply(e, 'run');
  }
  if (data instanceof Promise) return data.then(observation, (e: unknown) => wsErrorReply(e, 'run'));
  return observation(data);
}

function observation(data: StepPayload): WsReply {
  return { type: 'observation', data };
}

const MESSAGE_KEYS = new Set(['type', 'data']);
const STEP_DATA_KEYS = new Set(['message', 'metadata']);
const RESET_DATA_KEYS = new Set(['seed', 'episode_id']);

/**
 * The text of a step message of the plain shape `{type: 'step', data: {message, metadata?}}`, which
 * the message and text-action schemas accept unchanged; undefined for any other shape.
 */
function plainStepText(raw: Record<string, unknown>): string | undefined {
  if (!onlyKeys(raw, MESSAGE_KEYS)) return undefined;
  const data = raw.data;
  if (!isPlainObject(data) || !onlyKeys(data, STEP_DATA_KEYS)) return undefined;
  const { message, metadata } = data;
  if (typeof message !== 'string' || (metadata !== undefined && !isPlainObject(metadata))) return undefined;
  return message;
}

/**
 * The seed and episode id of a reset message of the plain shape `{type: 'reset', data?: {seed?,
 * episode_id?}}` with values ResetDataSchema accepts as they are; undefined for any other shape.
 */
function plainReset(raw: Record<string, unknown>): ResetOpts | undefined {
  if (!onlyKeys(raw, MESSAGE_KEYS)) return undefined;
  const data = raw.data;
  if (data === undefined) return {};
  if (!isPlainObject(data) || !onlyKeys(data, RESET_DATA_KEYS)) return undefined;
  const { seed, episode_id: episodeId } = data;
  if (!(seed === undefined || seed === null || (typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0))) return undefined;
  if (!(episodeId === undefined || episodeId === null || (typeof episodeId === 'string' && episodeId.length <= 255))) return undefined;
  return { seed, episodeId };
}

function invalid(error: z.ZodError, what: string, root: string): WsReply {
  return wsError(WS_ERROR.VALIDATION_ERROR, describeValidation(error, what), { errors: validationDetail(error, root) });
}

function wsErrorReply(e: unknown, during: 'make' | 'run'): WsReply {
  const { code, message, extra } = wsErrorFor(e, during);
  return wsError(code, message, extra);
}

function gemData(e: unknown): Record<string, unknown> | null {
  return isGemError(e) ? { gem_code: e.code, ...(e.data !== undefined ? { details: e.data } : {}) } : null;
}

function httpDetail(e: unknown): { detail: string; code: string } {
  return { detail: e instanceof Error ? e.message : String(e), code: isGemError(e) ? e.code : 'INTERNAL' };
}

function rpcToolResult(id: string | number | null | undefined, out: ToolCallOutcome): RpcResponse {
  if ('result' in out) return rpcResult(id, out.result);
  const code = out.error.error_type === 'execution_error' ? RPC_ERROR.INTERNAL_ERROR : RPC_ERROR.INVALID_PARAMS;
  return rpcError(id, code, out.error.message, { error_type: out.error.error_type });
}
