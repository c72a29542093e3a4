/**
 * The server's transport without sockets, for tests and for embedding: `connect()` gives a peer that
 * a test drives as a client would drive a ZeroMQ DEALER. Messages are copied (nothing is shared
 * between the two sides, as on a wire) and delivered on a later turn of the event loop, in order,
 * so the server meets the same interleavings as with a socket: a client stepping as fast as it can
 * never starves work the server does in slices.
 */
import { randomBytes } from 'node:crypto';
import { GemError } from '../core/errors.ts';
import type { Frames, MessageHandler, PeerGoneHandler, Transport } from './transport.ts';

const copy = (frames: Frames): Buffer[] => frames.map((f) => Buffer.from(f));

/** The client side of an in-memory connection. */
export class InMemoryPeer {
  /** Called with each message the server sends this peer. */
  onMessage?: (frames: Buffer[]) => void;
  closed = false;

  constructor(
    readonly id: Buffer,
    private readonly server: InMemoryTransport,
  ) {}

  /** Sends a message to the server; resolves once it is on its way (as a socket send does). */
  send(frames: Frames): Promise<void> {
    if (this.closed) return Promise.reject(new GemError('ENV_CLOSED', 'This in-memory peer is closed.'));
    if (frames.length === 0) return Promise.reject(new GemError('INVALID_REQUEST', 'A message needs at least one frame.'));
    this.server.deliverFromPeer(this, copy(frames));
    return Promise.resolve();
  }

  /**
   * Leaves without a word, as a killed client does: the server hears that the connection ended (as a
   * ROUTER does when a socket closes), after the messages already sent.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.forget(this);
  }
}

export class InMemoryTransport implements Transport {
  readonly address = `inmemory://${randomBytes(4).toString('hex')}`;
  private onMessage?: MessageHandler;
  private onPeerGone?: PeerGoneHandler;
  private closed = false;
  private readonly peers = new Map<string, InMemoryPeer>();

  start(onMessage: MessageHandler, onPeerGone?: PeerGoneHandler): Promise<string> {
    if (this.onMessage) return Promise.reject(new GemError('NOT_SUPPORTED', 'The server is already started.'));
    this.onMessage = onMessage;
    this.onPeerGone = onPeerGone;
    return Promise.resolve(this.address);
  }

  /** A new client; `id` plays the part of a DEALER's routing id (random when absent). */
  connect(id?: string): InMemoryPeer {
    const peerId = id === undefined ? randomBytes(5) : Buffer.from(id);
    const key = peerId.toString('latin1');
    if (this.peers.get(key)?.closed === false) throw new GemError('INVALID_REQUEST', `A peer with id '${id}' is already connected.`);
    const peer = new InMemoryPeer(peerId, this);
    this.peers.set(key, peer);
    return peer;
  }

  send(peer: Buffer, frames: Frames): void {
    if (this.closed) return;
    const to = this.peers.get(peer.toString('latin1'));
    if (!to) return;
    const msg = copy(frames);
    setImmediate(() => {
      if (!to.closed && !this.closed) to.onMessage?.(msg);
    });
  }

  close(): Promise<void> {
    this.closed = true;
    this.peers.clear();
    return Promise.resolve();
  }

  /** @internal */
  deliverFromPeer(peer: InMemoryPeer, frames: Buffer[]): void {
    setImmediate(() => {
      if (!this.closed && this.onMessage) this.onMessage(peer.id, frames);
    });
  }

  /** @internal */
  forget(peer: InMemoryPeer): void {
    const key = peer.id.toString('latin1');
    if (this.peers.get(key) === peer) this.peers.delete(key);
    // On a later turn, like its messages, so it arrives after every one of them.
    setImmediate(() => {
      if (!this.closed) this.onPeerGone?.(peer.id);
    });
  }
}
