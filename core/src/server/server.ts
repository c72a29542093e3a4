/**
 * The gem-ts server: serves vector envs to many clients over a transport (docs/protocol.md): a
 * ZeroMQ ROUTER in `gem-ts serve` (zmqRouterTransport.ts), an in-memory twin in tests. Messages come
 * in one at a time; each request runs on its own (many may be in flight per client, replies carry
 * the request id); replies leave through the transport's send queue. The server never dies of its
 * input: every bad message gets an error reply with a stable code, or is dropped when it cannot be
 * answered at all. Clients that go silent lose their handles after `idle_timeout_ms`.
 *
 * Tenancy (tenancy.ts): each client session sees the env catalog through its own overlay, so what it
 * registers or pushes is its own and goes away with it; quotas bound what one client may hold; with
 * an auth token, a session that has not presented it gets UNAUTHORIZED and nothing else.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GemError, isGemError } from '../core/errors.ts';
import { defaultWrappers } from '../envs/defaultWrappers.ts';
import type { EnvRegistry } from '../registry/registry.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';
import { tokenMatches, unauthorized } from './auth.ts';
import { ClientSession } from './clientSession.ts';
import { availableMemory } from './quotas.ts';
import { releaseFreedMemory } from './releaseMemory.ts';
import { Tenancy } from './tenancy.ts';
import { silentLogger, type Logger } from './logger.ts';
import { errorReply, okReply, parseRequest, peekRequestId, RequestError, unpackHeader, type ParsedRequest } from './protocol/frames.ts';
import { DEFAULT_LIMITS, PROTOCOL_VERSION, type ServerLimits } from './protocol/version.ts';
import { OpHandlers, type OpResult } from './opHandlers.ts';
import type { PoolFactory } from './servedPool.ts';
import type { Transport } from './transport.ts';

export interface ServerOptions {
  /** What carries the messages: a ZmqRouterTransport in `gem-ts serve`, an InMemoryTransport in tests. */
  transport: Transport;
  /** The env catalog every session reads through (the CLI passes the built-in one); never written. */
  catalog: EnvRegistry;
  /** The wrapper catalogue each session overlays (the CLI passes builtinCatalog's; default: the process's). */
  wrappers?: WrapperCatalog;
  limits?: Partial<ServerLimits>;
  logger?: Logger;
  /** Builds a handle's envs (default: the vector layer's makePool). */
  makePool?: PoolFactory;
  /** When set, a session must send this token in hello before anything else is answered. */
  authToken?: string;
}

export interface ServerStats {
  uptime_s: number;
  /** Live sessions (connected, or waiting to be resumed until the idle timeout). */
  clients: number;
  /** Connections bound to a session (let in); connections that proved nothing are not counted, nor kept. */
  connections: number;
  handles: number;
  envs: number;
  requests: number;
  rss_bytes: number;
  heap_used_bytes: number;
  /** Memory outside the JS heap held by JS objects (Buffers, ArrayBuffers). */
  external_bytes: number;
  /** Memory the process can still take, which memory_headroom_bytes is checked against. */
  available_memory_bytes: number;
  /** CPU time of the server process (user + system), for per-CPU-second rates in benchmarks. */
  cpu_s: number;
  /** Distinct pushed datasets held for all clients. */
  datasets: number;
  /** Every byte of data held for clients: pushed tables (identical bytes once), inline rows, files read. */
  dataset_bytes: number;
  pushed_bytes: number;
  /** Rows clients passed inline in make's options, held by their handles. */
  inline_bytes: number;
  /** Server-side files read for clients' handles (size on disk). */
  file_bytes: number;
  /** Names published under `shared/`. */
  shared_datasets: number;
  shared_envs: number;
}

const VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();

/** Headers bigger than this are not even parsed for an id when the whole message is too large. */
const MAX_HEADER_PEEK = 64 * 1024;
/** A session without the auth token gets no more than an id peeked from a message bigger than this. */
const MAX_UNAUTHENTICATED_BYTES = 64 * 1024;

export class GemServer {
  readonly limits: ServerLimits;
  readonly log: Logger;
  private readonly transport: Transport;
  private started = false;
  /** Every live session, bound to a connection or waiting to be resumed. */
  private readonly sessions = new Set<ClientSession>();
  /** Connections that were let in (transport peer id → session). A connection not here has proven nothing. */
  private readonly connections = new Map<string, ClientSession>();
  /** Sessions by the SHA-256 of their resume secret. */
  private readonly byResume = new Map<string, ClientSession>();
  private nextSerial = 1;
  private readonly ops: OpHandlers;
  private readonly tenancy: Tenancy;
  private sweepTimer?: NodeJS.Timeout;
  private boundEndpoint = '';
  private readonly startedAt = Date.now();
  private requestCount = 0;
  private closing = false;

  constructor(private readonly opts: ServerOptions) {
    const limits = { ...DEFAULT_LIMITS, ...opts.limits };
    // A client pinging at the announced rate must never look idle.
    limits.heartbeat_ms = Math.max(10, Math.min(limits.heartbeat_ms, Math.floor(limits.idle_timeout_ms / 3)));
    this.limits = limits;
    this.log = opts.logger ?? silentLogger();
    this.transport = opts.transport;
    this.tenancy = new Tenancy(opts.catalog, this.limits, opts.wrappers ?? defaultWrappers());
    this.ops = new OpHandlers({
      tenancy: this.tenancy,
      limits: this.limits,
      log: this.log,
      makePool: opts.makePool,
      serverInfo: () => ({ name: 'gem-ts', version: VERSION, node: process.version, pid: process.pid }),
      stats: () => ({ ...this.stats() }),
      endSession: (s) => this.endSession(s, 'closed by the client'),
      sendToClient: (s, header) => this.send(s, [header]),
    });
  }

  get endpoint(): string {
    return this.boundEndpoint;
  }

  /**
   * The session layer another front door shares (`gem-ts serve --openenv`): one tenancy (quotas,
   * `shared/` names, pushed tables) and one set of op handlers (the in-order queues) for every door.
   */
  get sessionLayer(): { tenancy: Tenancy; ops: OpHandlers } {
    return { tenancy: this.tenancy, ops: this.ops };
  }

  /** Starts the transport and serving; resolves with the endpoint clients should connect to. */
  async start(): Promise<string> {
    if (this.started) throw new GemError('NOT_SUPPORTED', 'The server is already started.');
    this.started = true;
    try {
      this.boundEndpoint = await this.transport.start(
        (peer, frames) => this.receive(peer, frames),
        (peer) => this.peerGone(peer),
      );
    } catch (e) {
      this.started = false; // a bind that failed (a port in use) may be retried
      throw e;
    }
    const sweepEvery = Math.max(50, Math.min(1000, Math.floor(this.limits.idle_timeout_ms / 4)));
    this.sweepTimer = setInterval(() => this.sweepIdle(), sweepEvery);
    this.sweepTimer.unref();
    this.log.info({ endpoint: this.boundEndpoint, limits: this.limits }, 'listening');
    return this.boundEndpoint;
  }

  /** Stops serving, frees every client's envs and closes the transport (removing an ipc socket file). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.transport.close();
    await Promise.allSettled([...this.sessions].map((s) => this.endSession(s, 'server closing')));
    this.log.info('closed');
  }

  stats(): ServerStats {
    let handles = 0;
    let envs = 0;
    for (const s of this.sessions) {
      handles += s.handles.size;
      envs += s.envCount();
    }
    const mem = process.memoryUsage();
    const cpu = process.cpuUsage();
    return {
      uptime_s: (Date.now() - this.startedAt) / 1000,
      clients: this.sessions.size,
      connections: this.connections.size,
      handles,
      envs,
      requests: this.requestCount,
      rss_bytes: mem.rss,
      heap_used_bytes: mem.heapUsed,
      external_bytes: mem.external,
      available_memory_bytes: availableMemory(),
      cpu_s: (cpu.user + cpu.system) / 1e6,
      ...this.tenancy.totals(),
    };
  }

  private receive(peer: Buffer, frames: Buffer[]): void {
    if (this.closing) return;
    try {
      this.onMessage(peer, frames);
    } catch (e) {
      // Nothing a client sends may stop the transport's loop.
      this.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'unexpected failure handling a message');
    }
  }

  /** A new session for a connection that was let in; it is bound to that connection. */
  private newSession(): ClientSession {
    const resume = randomBytes(24).toString('base64url');
    const s = new ClientSession(this.nextSerial++, resume, this.tenancy.newScope());
    this.sessions.add(s);
    this.byResume.set(resumeKey(resume), s);
    this.log.debug({ session: s.serial }, 'session started');
    return s;
  }

  /** Binds a connection to a session; the session's earlier connection, if any, loses it. */
  private bind(s: ClientSession, peer: Buffer): void {
    if (s.peer) this.connections.delete(s.peer.toString('latin1'));
    s.peer = Buffer.from(peer);
    this.connections.set(s.peer.toString('latin1'), s);
  }

  /** The transport says a connection ended: whatever it proved goes with it; its session waits to be resumed. */
  private peerGone(peer: Buffer): void {
    const key = peer.toString('latin1');
    const s = this.connections.get(key);
    if (!s) return;
    this.connections.delete(key);
    if (s.peer?.toString('latin1') === key) s.peer = undefined;
    this.log.debug({ session: s.serial }, 'connection ended');
  }

  /** The session a hello's `resume` secret names, if it is still alive. */
  private resumable(resume: unknown): ClientSession | undefined {
    if (typeof resume !== 'string') return undefined;
    const s = this.byResume.get(resumeKey(resume));
    return s && !s.ended ? s : undefined;
  }

  private onMessage(peer: Buffer, frames: Buffer[]): void {
    this.requestCount++;
    let size = 0;
    for (const f of frames) size += f.length;
    const session = this.connections.get(peer.toString('latin1')) ?? this.admit(peer, frames, size);
    if (!session) return;
    session.lastSeen = Date.now();
    session.requests++;

    if (size > this.limits.max_message_bytes) {
      this.reply(session, errorReply(this.peekId(frames[0]), tooLarge(size, this.limits.max_message_bytes)));
      return;
    }

    let req: ParsedRequest;
    try {
      req = parseRequest(frames);
    } catch (e) {
      const id = e instanceof RequestError ? e.requestId : null;
      this.log.debug({ err: String(e) }, 'bad request');
      this.reply(session, errorReply(id, toWireError(e, this.log)));
      return;
    }
    if (req.op === 'hello' && req.header.resume !== undefined) {
      const earlier = this.resumable(req.header.resume);
      if (earlier && earlier !== session) return this.resume(session, earlier, peer, req);
    }
    this.serve(session, req);
  }

  /**
   * A connection that is not bound to a session. Without an auth token anyone is let in, as a new
   * session or, by a hello with its `resume` secret, an earlier one. With a token only a hello that
   * carries it is let in; anything else gets one UNAUTHORIZED reply and leaves no trace: no session,
   * no entry for the connection, so token-less clients cost nothing however many there are.
   */
  private admit(peer: Buffer, frames: Buffer[], size: number): ClientSession | undefined {
    const token = this.opts.authToken;
    if (token === undefined) {
      const s = this.newSession();
      this.bind(s, peer);
      return s;
    }
    const hello = size <= MAX_UNAUTHENTICATED_BYTES && frames.length <= 2 ? helloFields(frames[0]) : undefined;
    if (!hello || !tokenMatches(token, hello.token)) {
      this.transport.send(peer, [errorReply(this.peekId(frames[0]), unauthorized())]);
      return undefined;
    }
    const s = this.newSession();
    this.bind(s, peer);
    return s;
  }

  /** A hello that names an earlier session: the connection moves to it, and a new session it had that holds nothing ends. */
  private resume(current: ClientSession, earlier: ClientSession, peer: Buffer, req: ParsedRequest): void {
    this.bind(earlier, peer);
    current.peer = undefined;
    if (current.handles.size === 0 && current.pushed.size === 0 && current.registeredEnvs.size === 0 && current.inflight === 0) {
      void this.endSession(current, 'resumed an earlier session');
    }
    earlier.lastSeen = Date.now();
    earlier.requests++;
    this.log.debug({ session: earlier.serial }, 'session resumed');
    this.serve(earlier, req);
  }

  private serve(session: ClientSession, req: ParsedRequest): void {
    if (req.op === 'env_return') {
      this.ops.envReturn(session, req.header);
      return;
    }
    if (session.inflight >= this.limits.max_inflight_per_client) {
      this.reply(
        session,
        errorReply(req.id, {
          code: 'LIMIT_EXCEEDED',
          message: `Too many requests in flight (${session.inflight}); the limit is ${this.limits.max_inflight_per_client} per client.`,
          data: { limit: 'max_inflight_per_client', value: session.inflight + 1, max: this.limits.max_inflight_per_client },
        }),
      );
      return;
    }

    session.inflight++;
    let result: OpResult | Promise<OpResult>;
    try {
      result = this.ops.handle(session, req);
    } catch (e) {
      session.inflight--;
      this.reply(session, errorReply(req.id, toWireError(e, this.log)));
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (r) => {
          session.inflight--;
          this.replyResult(session, req.id, r);
        },
        (e) => {
          session.inflight--;
          this.reply(session, errorReply(req.id, toWireError(e, this.log)));
        },
      );
    } else {
      session.inflight--;
      this.replyResult(session, req.id, result);
    }
  }

  private replyResult(session: ClientSession, id: number, r: OpResult): void {
    if (session.ended && !r.afterEnd) return;
    const header = okReply(id, r.fields);
    if (!r.body) return this.send(session, [header]);
    // zeromq.js 6 sends any Buffer or Uint8Array over 128 bytes zero-copy (it holds the body until
    // libzmq's I/O thread has written it, and says nothing when that is); the body is a fresh
    // allocation, never reused, so that is safe. A huge one lives in shared memory that V8 does not
    // count as external (replyMemory.ts), so these replies never force a full collection. When
    // `send` looks slow here (~1 ms for 200 KB on a busy 2-core box) the thread is off the CPU, not
    // working: measured, the whole process used ~0.1 ms of CPU over such a send, and the main thread
    // is preempted about once per batch as it wakes the I/O thread and the client.
    this.send(session, [header, Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength)]);
  }

  private reply(session: ClientSession, header: Buffer): void {
    this.send(session, [header]);
  }

  /** To the session's connection; dropped while it has none (a new one resumes it, or it idles out). */
  private send(session: ClientSession, frames: Buffer[]): void {
    if (session.peer) this.transport.send(session.peer, frames);
  }

  /** The request id of an oversized message: from the whole header when small, else from its first entries. */
  private peekId(header: Buffer | undefined): number | null {
    if (!header) return null;
    if (header.length > MAX_HEADER_PEEK) return peekRequestId(header);
    try {
      const raw = unpackHeader(header) as { id?: unknown };
      return Number.isSafeInteger(raw?.id) && (raw.id as number) >= 0 ? (raw.id as number) : null;
    } catch {
      return null;
    }
  }

  private sweepIdle(): void {
    const now = Date.now();
    for (const s of this.sessions) {
      if (s.inflight > 0 || now - s.lastSeen < this.limits.idle_timeout_ms) continue;
      void this.endSession(s, `idle for ${now - s.lastSeen} ms`);
    }
  }

  /** Frees a client's handles and Python-registered envs; it may come back as a fresh session. */
  private async endSession(s: ClientSession, why: string): Promise<void> {
    this.sessions.delete(s);
    this.byResume.delete(resumeKey(s.resume));
    const key = s.peer?.toString('latin1');
    if (key !== undefined && this.connections.get(key) === s) this.connections.delete(key);
    if (s.ended) return;
    s.ended = true;
    const envs = s.envCount();
    if (envs > 0 || s.registeredEnvs.size > 0 || s.pushed.size > 0) {
      // A serial number, never the routing id: a client may choose it, and a log reader could reuse it.
      this.log.info({ session: s.serial, handles: s.handles.size, envs, datasets: s.pushed.size, why }, 'freeing client');
    }
    const freedBytes = s.datasetBytes();
    await this.ops.freeSession(s, why);
    releaseFreedMemory(freedBytes);
  }
}

function resumeKey(resume: string): string {
  return createHash('sha256').update(resume).digest('hex');
}

/** The fields of a small header that is a hello, for the auth check before any session exists. */
function helloFields(header: Buffer | undefined): { token?: unknown } | undefined {
  if (!header || header.length === 0 || header.length > MAX_HEADER_PEEK) return undefined;
  try {
    const raw = unpackHeader(header) as Record<string, unknown> | null;
    return raw && typeof raw === 'object' && raw.op === 'hello' ? raw : undefined;
  } catch {
    return undefined;
  }
}

function tooLarge(size: number, limit: number): { code: string; message: string; data: unknown } {
  return {
    code: 'MESSAGE_TOO_LARGE',
    message: `The message is ${size} bytes; this server accepts at most ${limit} (see limits in the hello reply).`,
    data: { size, limit },
  };
}

/** GemErrors keep their code; anything else is an INTERNAL error, logged with its stack. */
export function toWireError(e: unknown, log: Logger): { code: string; message: string; data?: unknown } {
  if (isGemError(e)) return { code: e.code, message: e.message, data: e.data };
  log.error({ err: e instanceof Error ? e.stack : String(e) }, 'internal error');
  return { code: 'INTERNAL', message: `Internal server error: ${e instanceof Error ? e.message : String(e)}` };
}

export { PROTOCOL_VERSION };
