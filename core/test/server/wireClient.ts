/**
 * A minimal protocol v1 client for the server tests: raw frames in, replies matched by id out, over
 * the in-memory transport (`startServer` + `connect`) or a real zeromq.js DEALER (`startSocketServer`
 * + `new WireClient(endpoint)`). Server→client `env_call` messages go to `onEnvCall` when one is set.
 */
import { randomBytes } from 'node:crypto';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dealer } from 'zeromq';
import '../../src/envs/index.ts';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import { GemServer, type ServerOptions } from '../../src/server/server.ts';
import { InMemoryTransport, type InMemoryPeer } from '../../src/server/inMemoryTransport.ts';
import { ZmqRouterTransport } from '../../src/server/zmqRouterTransport.ts';
import { FrameReader, frameHeader, isStreamEndpoint, parseStreamEndpoint, StreamTransport } from '../../src/server/streamTransport.ts';
import { DEFAULT_LIMITS } from '../../src/server/protocol/version.ts';
import { packHeader, unpackHeader } from '../../src/server/protocol/frames.ts';

export interface Reply {
  header: Record<string, any>;
  body?: Buffer;
  /** The header frame as it arrived. */
  raw?: Buffer;
}

export type TestServerOptions = Partial<ServerOptions>;

export function uniqueIpc(): string {
  return `ipc://${join(tmpdir(), `gem-ts-test-${process.pid}-${randomBytes(4).toString('hex')}.sock`)}`;
}

/** The server's in-memory transports, for `connect`. */
const inMemory = new WeakMap<GemServer, InMemoryTransport>();

/** A started server on the in-memory transport, serving the built-in catalog unless told otherwise. */
export async function startServer(opts: TestServerOptions = {}): Promise<GemServer> {
  const transport = new InMemoryTransport();
  const server = new GemServer({ catalog: defaultRegistry, ...opts, transport });
  inMemory.set(server, transport);
  await server.start();
  return server;
}

/** A new client of a server from startServer; `routingId` names it as a DEALER's routing id would. */
export function connect(server: GemServer, routingId?: string): WireClient {
  const transport = inMemory.get(server);
  if (!transport) throw new Error('connect() needs a server from startServer(); use new WireClient(endpoint) for a socket server.');
  return new WireClient(transport.connect(routingId));
}

/** A fresh stream+ipc endpoint (the stream transport on a unix socket). */
export function uniqueStreamIpc(): string {
  return `stream+${uniqueIpc()}`;
}

/** A started server on a real socket at a fresh ipc endpoint: a zeromq ROUTER, or the stream transport for a stream+ endpoint. */
export async function startSocketServer(opts: TestServerOptions & { endpoint?: string } = {}): Promise<GemServer> {
  const { endpoint, ...rest } = opts;
  const maxMessageBytes = rest.limits?.max_message_bytes ?? DEFAULT_LIMITS.max_message_bytes;
  const at = endpoint ?? uniqueIpc();
  const transport = isStreamEndpoint(at) ? new StreamTransport({ endpoint: at, maxMessageBytes }) : new ZmqRouterTransport({ endpoint: at, maxMessageBytes });
  const server = new GemServer({ catalog: defaultRegistry, ...rest, transport });
  await server.start();
  return server;
}

/** How a WireClient's frames travel. */
interface Link {
  send(frames: (Buffer | Uint8Array)[]): Promise<void>;
  close(): void;
}

export class WireClient {
  private readonly link: Link;
  private nextId = 1;
  private readonly waiting = new Map<number | null, ((r: Reply) => void)[]>();
  /** zeromq.js allows one pending send per socket: sends go through this chain. */
  private sending: Promise<unknown> = Promise.resolve();
  onEnvCall?: (header: Record<string, any>) => Promise<Record<string, any>> | Record<string, any>;
  /** Replies with an id nobody waits for (and id-less error replies when nobody waits for null). */
  readonly stray: Reply[] = [];
  /** Header frames that were not msgpack at all (a server bug: every reply must decode). */
  readonly undecodable: Buffer[] = [];

  /** A DEALER connected to `endpoint` (a plain socket for a stream+ one), or an in-memory peer (see `connect`). */
  constructor(to: string | InMemoryPeer, routingId?: string) {
    if (typeof to !== 'string') {
      to.onMessage = (frames) => this.onFrames(frames);
      this.link = to;
      return;
    }
    if (isStreamEndpoint(to)) {
      this.link = streamLink(to, (frames) => this.onFrames(frames));
      return;
    }
    const sock = new Dealer({ linger: 0, ...(routingId ? { routingId } : {}) });
    sock.connect(to);
    this.link = { send: (frames) => sock.send(frames), close: () => sock.close() };
    void (async () => {
      try {
        for await (const frames of sock) this.onFrames(frames);
      } catch {
        // socket closed
      }
    })();
  }

  private onFrames([h, body]: Buffer[]): void {
    let header: Record<string, any>;
    try {
      header = unpackHeader(h) as Record<string, any>;
    } catch {
      this.undecodable.push(h);
      return;
    }
    if (header.op === 'env_call') {
      // Answered off the read loop, so a slow env never blocks other replies.
      void (async () => {
        const result = this.onEnvCall ? await this.onEnvCall(header) : { ok: false, error: { code: 'NOT_SUPPORTED', message: 'no handler' } };
        await this.send([packHeader({ v: 1, id: header.id, op: 'env_return', ...result })]);
      })();
      return;
    }
    const list = this.waiting.get(header.id ?? null);
    const reply = { header, body, raw: h };
    if (list && list.length) list.shift()!(reply);
    else this.stray.push(reply);
  }

  /** Sends raw frames; resolves with the next reply carrying `expectId` (null for id-less errors). */
  sendRaw(frames: (Buffer | Uint8Array)[], expectId: number | null): Promise<Reply> {
    const p = new Promise<Reply>((resolve) => {
      const list = this.waiting.get(expectId) ?? [];
      list.push(resolve);
      this.waiting.set(expectId, list);
    });
    return this.send(frames).then(() => p);
  }

  send(frames: (Buffer | Uint8Array)[]): Promise<void> {
    const next = this.sending.then(() => this.link.send(frames));
    this.sending = next.catch(() => undefined);
    return next;
  }

  /** Sends a request (v and id filled in) and resolves with its reply. */
  request(fields: Record<string, unknown>, body?: Uint8Array): Promise<Reply> {
    const id = this.nextId++;
    const frames = [packHeader({ v: 1, id, ...fields })];
    if (body) frames.push(Buffer.from(body));
    return this.sendRaw(frames, id);
  }

  /** Like request, but throws unless ok; returns the header. */
  async ok(fields: Record<string, unknown>, body?: Uint8Array): Promise<Reply> {
    const r = await this.request(fields, body);
    if (!r.header.ok) throw new Error(`${fields.op} failed: ${JSON.stringify(r.header.error)}`);
    return r;
  }

  close(): void {
    this.link.close();
  }
}

/** A plain-socket link to a stream+ipc:// or stream+tcp:// server, framed as the stream transport frames. */
function streamLink(endpoint: string, onFrames: (frames: Buffer[]) => void): Link {
  const at = parseStreamEndpoint(endpoint);
  const sock = 'path' in at ? netConnect(at.path) : netConnect(at.port, at.host);
  const reader = new FrameReader(1 << 30);
  sock.on('data', (chunk: Buffer) => {
    for (const frames of reader.push(chunk)) onFrames(frames);
  });
  sock.on('error', () => undefined);
  return {
    send: (frames) =>
      new Promise<void>((resolve, reject) => {
        if (sock.destroyed) return reject(new Error('the stream connection is closed'));
        sock.write(Buffer.concat([frameHeader(frames), ...frames]), (e) => (e ? reject(e) : resolve()));
      }),
    close: () => sock.destroy(),
  };
}

/** The server of one test and its clients, all closed by `close()` (call it in afterEach). */
export class TestScope {
  server?: GemServer;
  private readonly clients: WireClient[] = [];

  /** Starts a server (startServer or startSocketServer) as this test's. */
  async serve(started: Promise<GemServer>): Promise<GemServer> {
    this.server = await started;
    return this.server;
  }

  /** An in-memory client of the server. */
  client(routingId?: string): WireClient {
    return this.keep(connect(this.server!, routingId));
  }

  /** A DEALER connected to the socket server's endpoint. */
  socketClient(routingId?: string): WireClient {
    return this.keep(new WireClient(this.server!.endpoint, routingId));
  }

  private keep(c: WireClient): WireClient {
    this.clients.push(c);
    return c;
  }

  async close(): Promise<void> {
    for (const c of this.clients.splice(0)) c.close();
    await this.server?.close();
    this.server = undefined;
  }
}
