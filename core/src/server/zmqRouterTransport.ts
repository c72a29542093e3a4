/**
 * The server's transport in `gem-ts serve`: a ZeroMQ ROUTER bound to an `ipc://` or `tcp://`
 * endpoint. One receive loop hands each message on with the sender's routing id; replies leave
 * through one send queue (zeromq.js allows one pending send per socket). Closing removes the ipc
 * socket file.
 */
import { Router } from 'zeromq';
import { GemError } from '../core/errors.ts';
import { removeIpcFile, validateEndpoint } from './endpoint.ts';
import { silentLogger, type Logger } from './logger.ts';
import { SendQueue } from './sendQueue.ts';
import type { Frames, MessageHandler, Transport } from './transport.ts';

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

  constructor(private readonly opts: ZmqRouterOptions) {
    this.log = opts.logger ?? silentLogger();
  }

  async start(onMessage: MessageHandler): Promise<string> {
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
      await socket.bind(endpoint);
    } catch (e) {
      socket.close();
      throw e;
    }
    this.socket = socket;
    this.boundEndpoint = socket.lastEndpoint ?? endpoint;
    this.sendQueue = new SendQueue(socket, (e) => this.log.debug({ err: String(e) }, 'send failed'));
    this.loopDone = this.receiveLoop(socket, onMessage);
    return this.boundEndpoint;
  }

  send(peer: Buffer, frames: Frames): void {
    this.sendQueue?.push([peer, ...frames]);
  }

  async close(): Promise<void> {
    this.sendQueue?.close();
    this.socket?.close();
    await this.loopDone?.catch(() => undefined);
    removeIpcFile(this.boundEndpoint);
  }

  private async receiveLoop(socket: Router, onMessage: MessageHandler): Promise<void> {
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
      if (routingId) onMessage(routingId, frames);
    }
  }
}
