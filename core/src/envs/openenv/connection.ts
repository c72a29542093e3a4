/**
 * One OpenEnv WebSocket session: opened once, requests answered in order, kept alive with pings,
 * closed with OpenEnv's `close` message. Every failure is a GemError that names the URL, and nothing
 * waits forever: the handshake has `connectTimeoutMs`, each request `messageTimeoutMs`.
 *
 *   unreachable (refused, no such host)      SERVER_UNAVAILABLE
 *   no handshake / no reply in time          TIMEOUT (the socket is dropped: its state is unknown)
 *   HTTP 401/403 on the upgrade              UNAUTHORIZED
 *   any other HTTP answer, non-OpenEnv reply PROTOCOL_ERROR
 *   the server closes the socket             SERVER_UNAVAILABLE (pending requests fail at once)
 *   an OpenEnv error frame                   gem-ts's code when a gem-ts server sent it (`gem_code`),
 *                                            else CAPACITY_REACHED → LIMIT_EXCEEDED,
 *                                            VALIDATION_ERROR → INVALID_REQUEST,
 *                                            INVALID_JSON / UNKNOWN_TYPE → PROTOCOL_ERROR,
 *                                            the env's own failures → WORKER_FAILED
 */
import { WebSocket } from 'ws';
import { GEM_ERROR_CODES, GemError, type GemErrorCode } from '../../core/errors.ts';
import { parseReply, type Reply, type Request } from './wire.ts';

export interface ConnectionOptions {
  /** The base URL as the user gave it (for messages). */
  url: string;
  /** The WebSocket URL (wire.ts sessionUrl). */
  wsUrl: string;
  headers: Record<string, string>;
  connectTimeoutMs: number;
  messageTimeoutMs: number;
  /** 0: no pings. */
  pingIntervalMs: number;
}

interface Pending {
  what: string;
  resolve: (r: Reply) => void;
  reject: (e: GemError) => void;
  timer: NodeJS.Timeout;
}

/** An OpenEnv error frame as a GemError. */
export function remoteError(url: string, what: string, data: { message: string; code: string; [k: string]: unknown }): GemError {
  const gem = typeof data.gem_code === 'string' && (GEM_ERROR_CODES as readonly string[]).includes(data.gem_code) ? (data.gem_code as GemErrorCode) : undefined;
  const mapped: Record<string, GemErrorCode> = {
    CAPACITY_REACHED: 'LIMIT_EXCEEDED',
    VALIDATION_ERROR: 'INVALID_REQUEST',
    INVALID_JSON: 'PROTOCOL_ERROR',
    UNKNOWN_TYPE: 'PROTOCOL_ERROR',
  };
  const code = gem ?? mapped[data.code] ?? 'WORKER_FAILED';
  return new GemError(code, `The OpenEnv server at ${url} answered ${what} with ${data.code}: ${data.message}`, { url, openenv_code: data.code, ...(gem ? { gem_code: gem } : {}) });
}

export class OpenEnvConnection {
  private ws?: WebSocket;
  private opening?: Promise<void>;
  private readonly pending: Pending[] = [];
  private pinger?: NodeJS.Timeout;
  /** Why the socket is gone (set once it closes or fails). */
  private ended?: GemError;
  /** An error frame that came with no request waiting for it. */
  private unsolicited?: { message: string; code: string; [k: string]: unknown };

  constructor(private readonly opts: ConnectionOptions) {}

  /** Why the session is gone (failed, closed by the server, timed out, closed here); undefined while usable. */
  get failure(): GemError | undefined {
    return this.ended;
  }

  /** Opens the session's socket (once). */
  open(): Promise<void> {
    this.opening ??= this.connect();
    return this.opening;
  }

  private connect(): Promise<void> {
    const { url, wsUrl } = this.opts;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (e: GemError): void => {
        if (!settled) {
          settled = true;
          reject(e);
        }
        this.end(e);
      };
      let ws: WebSocket;
      try {
        ws = new WebSocket(wsUrl, { headers: this.opts.headers, handshakeTimeout: this.opts.connectTimeoutMs, maxPayload: 256 * 1024 * 1024 });
      } catch (e) {
        fail(new GemError('INVALID_OPTIONS', `Cannot open ${wsUrl}: ${(e as Error).message}`, { url }));
        return;
      }
      this.ws = ws;
      // The ws library's handshake timeout covers the HTTP exchange; this one covers a TCP connect that hangs.
      const guard = setTimeout(() => {
        fail(new GemError('TIMEOUT', `No OpenEnv server answered at ${wsUrl} within ${this.opts.connectTimeoutMs} ms (is it an OpenEnv server, and running?).`, { url }));
        ws.terminate();
      }, this.opts.connectTimeoutMs + 100);
      ws.on('unexpected-response', (_req, res) => {
        clearTimeout(guard);
        const status = res.statusCode ?? 0;
        res.resume();
        const auth = status === 401 || status === 403;
        fail(
          new GemError(
            auth ? 'UNAUTHORIZED' : 'PROTOCOL_ERROR',
            auth
              ? `The OpenEnv server at ${url} refused the session (HTTP ${status}): give its token, e.g. headers: {"Authorization": "Bearer <token>"}.`
              : `${url} answered HTTP ${status} to a WebSocket session at ${wsUrl}: not an OpenEnv server (an OpenEnv server accepts sessions at <base URL>/ws).`,
            { url, status },
          ),
        );
        ws.terminate();
      });
      ws.on('open', () => {
        clearTimeout(guard);
        settled = true;
        if (this.opts.pingIntervalMs > 0) {
          this.pinger = setInterval(() => {
            if (ws.readyState === WebSocket.OPEN) ws.ping();
          }, this.opts.pingIntervalMs);
          this.pinger.unref();
        }
        resolve();
      });
      ws.on('message', (data, isBinary) => this.onMessage(isBinary ? '' : data.toString()));
      ws.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(guard);
        const timedOut = /timed out/i.test(e.message);
        const code: GemErrorCode = timedOut ? 'TIMEOUT' : 'SERVER_UNAVAILABLE';
        fail(new GemError(code, `Cannot reach the OpenEnv server at ${url} (${wsUrl}): ${e.code ?? e.message}${timedOut ? '' : ' (is it running?)'}.`, { url, cause: e.code ?? e.message }));
      });
      ws.on('close', (code, reason) => {
        clearTimeout(guard);
        const why = reason.length ? `${code} ${reason.toString().slice(0, 120)}` : String(code);
        if (this.unsolicited) fail(remoteError(url, 'the session', this.unsolicited));
        else fail(new GemError('SERVER_UNAVAILABLE', `The OpenEnv server at ${url} closed the session (WebSocket close ${why}); reset to open a new one.`, { url, close_code: code }));
      });
    });
  }

  /** Sends one request and waits for its reply (replies come in request order). */
  async request(msg: Request, what: string): Promise<Reply> {
    await this.open();
    if (this.ended) throw this.ended;
    const ws = this.ws!;
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        const e = new GemError('TIMEOUT', `The OpenEnv server at ${this.opts.url} did not answer ${what} within ${this.opts.messageTimeoutMs} ms; the session was dropped (reset opens a new one).`, { url: this.opts.url });
        this.end(e);
        ws.terminate();
      }, this.opts.messageTimeoutMs);
      this.pending.push({ what, resolve, reject, timer });
      ws.send(JSON.stringify(msg));
    });
  }

  private onMessage(text: string): void {
    const p = this.pending.shift();
    if (!p) {
      // Nothing asked: OpenEnv's server sends a refused session's error (CAPACITY_REACHED,
      // FACTORY_ERROR) as soon as the socket opens, then closes it; the close reports it.
      try {
        const r = parseReply(text, this.opts.url);
        if (r.type === 'error') this.unsolicited = r.data;
      } catch {
        // not OpenEnv's: the next request's reply will say so
      }
      return;
    }
    clearTimeout(p.timer);
    try {
      p.resolve(parseReply(text, this.opts.url));
    } catch (e) {
      p.reject(e as GemError);
      this.end(e as GemError);
      this.ws?.terminate();
    }
  }

  /** Fails what is pending and marks the socket gone. */
  private end(e: GemError): void {
    if (!this.ended) this.ended = e;
    if (this.pinger) clearInterval(this.pinger);
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(e);
    }
  }

  /** Sends OpenEnv's `close`, closes the socket, and waits (briefly) for the close handshake. */
  async close(): Promise<void> {
    const ws = this.ws;
    this.end(new GemError('ENV_CLOSED', `The OpenEnv session with ${this.opts.url} was closed.`, { url: this.opts.url }));
    if (!ws) return;
    if (ws.readyState === WebSocket.CONNECTING) {
      ws.terminate();
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 1000);
      ws.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      ws.send(JSON.stringify({ type: 'close' }), () => ws.close(1000));
    });
  }
}
