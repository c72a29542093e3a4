/**
 * The OpenEnv front door's sockets: one node:http server for the HTTP routes and, through `ws`, the
 * WebSocket routes `/ws` and `/mcp`. Every request and message is handed to OpenEnvProtocol
 * (protocol.ts); this file only reads bodies, checks sizes and auth at the door, keeps each socket's
 * replies in order and closes sockets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { OpenEnvProtocol, parseRoute, type OpenEnvOptions, type Route, type WsOutcome } from './protocol.ts';
import type { OpenEnvSession } from './session.ts';
import { replyText, RPC_ERROR, rpcError } from './wire.ts';

export interface OpenEnvServerOptions extends OpenEnvOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
}

/** WebSocket close code for a normal end, and for one the server decided (idle, closing). */
const WS_NORMAL = 1000;
const WS_GOING_AWAY = 1001;

export class OpenEnvServer {
  readonly protocol: OpenEnvProtocol;
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private boundUrl = '';

  constructor(private readonly opts: OpenEnvServerOptions) {
    this.protocol = new OpenEnvProtocol(opts);
    const maxBytes = this.protocol.limits.max_message_bytes;
    this.wss = new WebSocketServer({ noServer: true, maxPayload: maxBytes });
    this.http = createServer((req, res) => void this.onRequest(req, res));
    this.http.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    // Clients pipeline many sessions on few connections; keep idle HTTP connections a while.
    this.http.keepAliveTimeout = 30_000;
  }

  /** The base URL clients are given, e.g. `http://127.0.0.1:8000`. */
  get url(): string {
    return this.boundUrl;
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.opts.port, this.opts.host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    const addr = this.http.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    this.boundUrl = `http://${host}:${addr.port}`;
    this.protocol.startSweeping();
    this.protocol.log.info({ url: this.boundUrl }, 'OpenEnv front door listening');
    return this.boundUrl;
  }

  async close(): Promise<void> {
    await this.protocol.close();
    for (const ws of this.wss.clients) ws.close(WS_GOING_AWAY, 'server closing');
    this.wss.close();
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }

  // ── HTTP ──────────────────────────────────────────────────────────────────────────────────────

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const { pathname } = new URL(req.url ?? '/', 'http://x');
      const route = parseRoute(pathname);
      if (!route) return send(res, 404, { detail: 'Not Found' });
      if (!this.protocol.authorized(route.endpoint, req.headers.authorization)) return send(res, 401, { detail: unauthorizedText() });
      let body: string | undefined;
      if (req.method === 'POST') {
        body = await readBody(req, this.protocol.limits.max_message_bytes);
        if (body === undefined) return send(res, 413, { detail: `The body is over ${this.protocol.limits.max_message_bytes} bytes (gem-ts serve --max-message-bytes).` });
      }
      const answer = await this.protocol.http(req.method ?? 'GET', route, body);
      send(res, answer.status, answer.body);
    } catch (e) {
      this.protocol.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'OpenEnv HTTP request failed');
      if (!res.headersSent) send(res, 500, { detail: `Internal server error: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  // ── WebSocket ─────────────────────────────────────────────────────────────────────────────────

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = parseRoute(url.pathname);
    if (!route || (route.endpoint !== 'ws' && route.endpoint !== 'mcp')) return refuse(socket, 404, 'Not Found');
    if (!this.protocol.authorized(route.endpoint, req.headers.authorization)) return refuse(socket, 401, unauthorizedText());
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      if (route.endpoint === 'mcp') void this.serveMcpSocket(ws, route);
      else this.serveSession(ws, route, url.searchParams.get('session_id'));
    });
  }

  /** `/ws`: one session, its messages answered one after another in arrival order. */
  private serveSession(ws: WebSocket, route: Route, sessionId: string | null): void {
    ws.on('error', () => undefined);
    const opened = this.protocol.openWs(route, sessionId);
    if ('error' in opened) {
      // A refused session gets its error frame, then the close (OpenEnv's clients read the frame first).
      ws.send(JSON.stringify(opened.error), () => ws.close(WS_NORMAL));
      return;
    }
    new SessionSocket(ws, this.protocol, opened.session, opened.owned).listen();
  }

  /** `/mcp` as a WebSocket: JSON-RPC requests on one session of its own. */
  private serveMcpSocket(ws: WebSocket, route: Route): void {
    let session: OpenEnvSession;
    let chain: Promise<void> = Promise.resolve();
    ws.on('error', () => undefined);
    try {
      session = this.protocol.createSession(route);
    } catch (e) {
      ws.send(JSON.stringify(rpcError(null, RPC_ERROR.SERVER_ERROR, e instanceof Error ? e.message : String(e))), () => ws.close(WS_NORMAL));
      return;
    }
    session.kick = (why) => ws.close(WS_GOING_AWAY, why.slice(0, 120));
    ws.on('message', (data) => {
      chain = chain.then(async () => {
        session.lastSeen = Date.now();
        let raw: unknown;
        try {
          raw = JSON.parse(rawText(data));
        } catch (e) {
          ws.send(JSON.stringify(rpcError(null, RPC_ERROR.PARSE_ERROR, `Parse error: ${(e as Error).message}`)));
          return;
        }
        const reply = await this.protocol.rpc(raw, { session, route });
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(reply));
      }).catch((e: unknown) => this.protocol.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'OpenEnv MCP message failed'));
    });
    ws.on('close', () => {
      void chain.then(() => this.protocol.endSession(session, 'MCP WebSocket closed'));
    });
  }
}

/**
 * A `/ws` socket and its session. A message is answered as soon as it arrives when no earlier one is
 * still running; one that arrives meanwhile waits its turn. A step or reset whose env runs inline is
 * answered in the turn its message arrived in: no queue, no promise.
 */
class SessionSocket {
  private readonly waiting: RawData[] = [];
  /** A message's answer is still to come (a promise): later messages wait. */
  private busy = false;
  /** The socket closed, or a `close` message came: nothing more is answered. */
  private stopped = false;
  private ended = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly protocol: OpenEnvProtocol,
    private readonly session: OpenEnvSession,
    private readonly owned: boolean,
  ) {}

  listen(): void {
    const { ws, session } = this;
    session.kick = (why) => ws.close(WS_GOING_AWAY, why.slice(0, 120));
    ws.on('ping', () => (session.lastSeen = Date.now()));
    ws.on('message', (data) => this.onMessage(data));
    ws.on('close', () => {
      this.stopped = true;
      if (!this.busy) this.end();
    });
  }

  private onMessage(data: RawData): void {
    if (this.stopped) return;
    if (this.busy) this.waiting.push(data);
    else this.run(data);
  }

  /** Answers `data`, then the messages that came while it ran, until one has to wait for a promise. */
  private run(data: RawData | undefined): void {
    while (data !== undefined && !this.stopped) {
      const outcome = this.protocol.onWsMessage(this.session, rawText(data));
      if (outcome instanceof Promise) {
        this.busy = true;
        outcome.then(
          (o) => {
            this.busy = false;
            this.answer(o);
            if (this.stopped) this.end();
            else this.run(this.waiting.shift());
          },
          (e: unknown) => this.fail(e),
        );
        return;
      }
      this.answer(outcome);
      data = this.waiting.shift();
    }
    if (this.stopped) this.end();
  }

  private answer(outcome: WsOutcome): void {
    if (outcome.reply && this.ws.readyState === this.ws.OPEN) this.ws.send(replyText(outcome.reply));
    if (outcome.close) {
      this.stopped = true;
      this.ws.close(WS_NORMAL);
    }
  }

  /** onWsMessage never rejects; if it ever does, the socket closes rather than hang. */
  private fail(e: unknown): void {
    this.protocol.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'OpenEnv session failed');
    this.busy = false;
    this.stopped = true;
    this.ws.close(WS_GOING_AWAY, 'internal error');
    this.end();
  }

  /** Detaches the session (ending it when this socket made it), once. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting.length = 0;
    this.protocol.closeWs(this.session, this.owned).catch((e: unknown) => this.protocol.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'OpenEnv session close failed'));
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The whole body as text, or undefined when it is over `max` bytes. */
function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function refuse(socket: Duplex, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  const reason = status === 401 ? 'Unauthorized' : 'Not Found';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

function unauthorizedText(): string {
  return "This server requires an auth token: send the header 'Authorization: Bearer <token>' (OpenEnv clients: headers={'Authorization': 'Bearer ' + token}).";
}
