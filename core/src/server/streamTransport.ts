/**
 * The server's transport over a plain byte stream: a unix socket (`stream+ipc:///path`) or a TCP
 * port (`stream+tcp://host:port`), with gem-ts's own framing (docs/protocol.md, "The stream
 * transport"). It carries the same multipart messages as the ZeroMQ ROUTER, for about a quarter of
 * the round-trip time: ZeroMQ hands every message through an I/O thread on each side, four thread
 * switches a round trip, which on a 2-core box cost ~150 µs against ~35 µs for a socket read and
 * write (measured in docs/performance.md).
 *
 * Each accepted connection is one peer, named by a random id the client never sees or chooses, so
 * whatever a connection proved (the auth token) ends with it; a reconnect is a new peer.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { GemError } from '../core/errors.ts';
import { validateEndpoint } from './endpoint.ts';
import { silentLogger, type Logger } from './logger.ts';
import type { Frames, MessageHandler, PeerGoneHandler, Transport } from './transport.ts';

/**
 * A connection that has not sent one whole message this long after it opened is closed, as ZeroMQ
 * drops one that never finishes its handshake: idle sockets nobody uses cost no descriptors for long.
 */
export const FIRST_MESSAGE_MS = 30_000;

/** A message may have at most this many frames (gem-ts's have 1–3); more means a broken stream. */
export const MAX_FRAMES = 16;

/** The bytes that precede a message's frames: its frame count and each frame's length (u32 LE). */
export function frameHeader(frames: Frames): Buffer {
  const head = Buffer.allocUnsafe(4 + 4 * frames.length);
  head.writeUInt32LE(frames.length, 0);
  for (let k = 0; k < frames.length; k++) head.writeUInt32LE(frames[k].byteLength, 4 + 4 * k);
  return head;
}

/**
 * Cuts a byte stream into messages. `push` takes each chunk as it arrives and returns the messages it
 * completed; a malformed or oversized message throws, and the caller drops the connection.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxMessageBytes: number) {}

  push(chunk: Buffer): Buffer[][] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: Buffer[][] = [];
    for (;;) {
      const msg = this.next();
      if (!msg) return out;
      out.push(msg);
    }
  }

  private next(): Buffer[] | undefined {
    if (this.buffered < 4) return undefined;
    const head = this.peek(4);
    const n = head.readUInt32LE(0);
    if (n === 0 || n > MAX_FRAMES) throw new GemError('INVALID_REQUEST', `A stream message declared ${n} frames.`);
    if (this.buffered < 4 + 4 * n) return undefined;
    const lengths = this.peek(4 + 4 * n);
    let total = 0;
    for (let k = 0; k < n; k++) total += lengths.readUInt32LE(4 + 4 * k);
    if (total > this.maxMessageBytes) throw new GemError('MESSAGE_TOO_LARGE', `A stream message declared ${total} bytes.`);
    if (this.buffered < 4 + 4 * n + total) return undefined;
    const all = this.take(4 + 4 * n + total);
    const frames: Buffer[] = [];
    let at = 4 + 4 * n;
    for (let k = 0; k < n; k++) {
      const len = all.readUInt32LE(4 + 4 * k);
      frames.push(all.subarray(at, at + len));
      at += len;
    }
    return frames;
  }

  /** The first `n` buffered bytes, joining chunks only when the first one is too short. */
  private peek(n: number): Buffer {
    if (this.chunks[0].length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private take(n: number): Buffer {
    const first = this.peek(n);
    this.buffered -= n;
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    return first.subarray(0, n);
  }
}

export interface StreamTransportOptions {
  /** `stream+ipc:///path`, `stream+tcp://host:port`, or `stream+ipc` (a socket in the runtime dir). */
  endpoint: string;
  /** The largest message the server announces; a connection sending one over twice this is dropped. */
  maxMessageBytes: number;
  logger?: Logger;
}

export class StreamTransport implements Transport {
  private server?: Server;
  private readonly peers = new Map<string, Socket>();
  private socketPath?: string;
  private readonly log: Logger;

  constructor(
    private readonly opts: StreamTransportOptions,
    private readonly firstMessageMs = FIRST_MESSAGE_MS,
  ) {
    this.log = opts.logger ?? silentLogger();
  }

  async start(onMessage: MessageHandler, onPeerGone?: PeerGoneHandler): Promise<string> {
    if (this.server) throw new GemError('NOT_SUPPORTED', 'The server is already started.');
    const endpoint = validateEndpoint(this.opts.endpoint);
    const server = createServer({ noDelay: true }, (socket) => this.accept(socket, onMessage, onPeerGone));
    const address = parseStreamEndpoint(endpoint);
    const listen = () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        if ('path' in address) server.listen(address.path, () => resolve());
        else server.listen(address.port, address.host, () => resolve());
      });
    try {
      await listen();
    } catch (e) {
      // A server killed on this path left its socket file: take the path over if nobody answers there.
      if (!('path' in address) || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || !(await isStaleSocket(address.path))) throw e;
      rmSync(address.path, { force: true });
      await listen();
    }
    server.on('error', (e) => this.log.error({ err: String(e) }, 'stream transport error'));
    this.server = server;
    if ('path' in address) {
      this.socketPath = address.path;
      chmodSync(address.path, 0o600); // only this user reaches an ipc server, as with ZeroMQ's in a 0700 dir
      return endpoint;
    }
    const bound = server.address();
    const port = typeof bound === 'object' && bound ? bound.port : address.port;
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    return `stream+tcp://${host}:${port}`;
  }

  send(peer: Buffer, frames: Frames): void {
    const socket = this.peers.get(peer.toString('latin1'));
    if (!socket || socket.destroyed) return;
    const head = frameHeader(frames);
    let size = head.length;
    for (const f of frames) size += f.byteLength;
    if (size <= 16384) {
      // One write for a small message: fewer syscalls than a corked series.
      socket.write(Buffer.concat([head, ...frames.map(asBuffer)], size));
      return;
    }
    socket.cork();
    socket.write(head);
    for (const f of frames) socket.write(asBuffer(f));
    socket.uncork();
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const socket of this.peers.values()) socket.destroy();
    this.peers.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (this.socketPath) rmSync(this.socketPath, { force: true });
  }

  private accept(socket: Socket, onMessage: MessageHandler, onPeerGone?: PeerGoneHandler): void {
    const peer = randomBytes(16);
    const key = peer.toString('latin1');
    this.peers.set(key, socket);
    const reader = new FrameReader(this.opts.maxMessageBytes * 2 + 1024 * 1024);
    let silent: NodeJS.Timeout | undefined = setTimeout(() => socket.destroy(), this.firstMessageMs);
    silent.unref();
    socket.on('data', (chunk: Buffer) => {
      let messages: Buffer[][];
      try {
        messages = reader.push(chunk);
      } catch (e) {
        this.log.debug({ err: String(e) }, 'dropping a stream connection that broke the framing');
        socket.destroy();
        return;
      }
      if (silent !== undefined && messages.length > 0) {
        clearTimeout(silent);
        silent = undefined;
      }
      for (const frames of messages) onMessage(peer, frames);
    });
    socket.on('error', (e) => this.log.debug({ err: String(e) }, 'stream connection error'));
    socket.on('close', () => {
      if (silent !== undefined) clearTimeout(silent);
      if (this.peers.get(key) === socket) this.peers.delete(key);
      onPeerGone?.(peer);
    });
  }
}

/** Whether `path` is a unix socket file that no process listens on (what a killed server leaves). */
async function isStaleSocket(path: string): Promise<boolean> {
  try {
    if (!lstatSync(path).isSocket()) return false;
  } catch {
    return false;
  }
  return new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

function asBuffer(f: Buffer | Uint8Array): Buffer {
  return Buffer.isBuffer(f) ? f : Buffer.from(f.buffer, f.byteOffset, f.byteLength);
}

/** Whether an endpoint is served by this transport rather than ZeroMQ's. */
export function isStreamEndpoint(endpoint: string): boolean {
  return endpoint.startsWith('stream+');
}

/** Where a stream+ endpoint listens: a unix socket's path, or a TCP host and port (`*`: every address). */
export function parseStreamEndpoint(endpoint: string): { path: string } | { host: string; port: number } {
  if (endpoint.startsWith('stream+ipc://')) return { path: endpoint.slice('stream+ipc://'.length) };
  const m = /^stream\+tcp:\/\/\[?([^\]]+?)\]?:(\d+)$/.exec(endpoint);
  if (!m) throw new GemError('INVALID_OPTIONS', `Endpoint '${endpoint}' must look like stream+ipc:///path or stream+tcp://host:port.`, { endpoint });
  return { host: m[1] === '*' ? '0.0.0.0' : m[1], port: Number(m[2]) };
}
