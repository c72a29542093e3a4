/**
 * The server's transport in `gem-ts serve`: a ZeroMQ ROUTER bound to an `ipc://` or `tcp://`
 * endpoint. One receive loop hands each message on with the sender's routing id; replies leave
 * through one send queue (zeromq.js allows one pending send per socket). Closing removes the ipc
 * socket file.
 *
 * Connections that end are reported through libzmq's ZMQ_DISCONNECT_MSG (a draft option, built into
 * the zeromq npm package): the ROUTER delivers a message of our choosing under the peer's routing id
 * after the last one that connection sent. The message is 32 random bytes made at start, so no client
 * can forge it (ROUTER_NOTIFY's empty frame could be sent by any client). libzmq refuses a second
 * connection with a routing id that is still connected, so a client that steals an id can only use it
 * after the owner's connection ended, and so after this report.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Router } from 'zeromq';
import { GemError } from '../core/errors.ts';
import { removeIpcFile, validateEndpoint } from './endpoint.ts';
import { silentLogger, type Logger } from './logger.ts';
import { SendQueue } from './sendQueue.ts';
import type { Frames, MessageHandler, PeerGoneHandler, Transport } from './transport.ts';

/** libzmq's ZMQ_DISCONNECT_MSG socket option (zmq.h, draft API). */
const ZMQ_DISCONNECT_MSG = 111;

export interface ZmqRouterOptions {
  /** `ipc:///path`, `tcp://host:port`, or 'auto' (an ipc socket in the runtime dir; the default). */
  endpoint?: string;
  /** The largest message the server announces; libzmq's own cap is set well above it. */
  maxMessageBytes: number;
  logger?: Logger;
}

export class ZmqRouterTransport implements Transport {
  private socket?: Router;
  private sendQueue?: SendQueue;
  private loopDone?: Promise<void>;
  private boundEndpoint = '';
  private readonly log: Logger;
  private readonly goneMarker = randomBytes(32);

  constructor(private readonly opts: ZmqRouterOptions) {
    this.log = opts.logger ?? silentLogger();
  }

  async start(onMessage: MessageHandler, onPeerGone?: PeerGoneHandler): Promise<string> {
    if (this.socket) throw new GemError('NOT_SUPPORTED', 'The server is already started.');
    const endpoint = validateEndpoint(this.opts.endpoint ?? 'auto');
    // zeromq's own cap is a backstop well above the announced limit: a message between the two gets
    // a MESSAGE_TOO_LARGE reply, only absurd ones make libzmq drop the connection.
    const socket = new Router({
      maxMessageSize: this.opts.maxMessageBytes * 2 + 1024 * 1024,
      sendHighWaterMark: 0,
      receiveHighWaterMark: 0,
      linger: 0,
    });
    try {
      // zeromq.js has no typed accessor for draft options; its generic setter is there at run time.
      (socket as unknown as { setStringOption(option: number, value: Buffer): void }).setStringOption(ZMQ_DISCONNECT_MSG, this.goneMarker);
    } catch (e) {
      socket.close();
      throw new GemError('NOT_SUPPORTED', `This libzmq cannot report ended connections (ZMQ_DISCONNECT_MSG), which auth needs: ${String(e)}`);
    }
    try {
      await socket.bind(endpoint);
    } catch (e) {
      socket.close();
      throw e;
    }
    this.socket = socket;
    this.boundEndpoint = socket.lastEndpoint ?? endpoint;
    this.sendQueue = new SendQueue(socket, (e) => this.log.debug({ err: String(e) }, 'send failed'));
    this.loopDone = this.receiveLoop(socket, onMessage, onPeerGone);
    return this.boundEndpoint;
  }

  send(peer: Buffer, frames: Frames): void {
    this.sendQueue?.push([peer, ...frames]);
  }

  async close(): Promise<void> {
    this.sendQueue?.close();
    this.socket?.close();
    // The file goes with the socket, before any wait: a close cut short (serve's grace) leaves none.
    removeIpcFile(this.boundEndpoint);
    await this.loopDone?.catch(() => undefined);
  }

  private async receiveLoop(socket: Router, onMessage: MessageHandler, onPeerGone?: PeerGoneHandler): Promise<void> {
    while (!socket.closed) {
      let msg: Buffer[];
      try {
        msg = await socket.receive();
      } catch (e) {
        if (socket.closed) return;
        this.log.error({ err: String(e) }, 'receive failed');
        continue;
      }
      const [routingId, ...frames] = msg;
      if (!routingId) continue;
      if (frames.length === 1 && this.isGoneMarker(frames[0])) onPeerGone?.(routingId);
      else onMessage(routingId, frames);
    }
  }

  private isGoneMarker(frame: Buffer): boolean {
    return frame.length === this.goneMarker.length && timingSafeEqual(frame, this.goneMarker);
  }
}
