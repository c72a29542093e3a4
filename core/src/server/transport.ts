/**
 * The server's seam to the wire: whatever carries multipart messages between the server and its
 * peers (a ZeroMQ ROUTER socket in `gem-ts serve`, an in-memory twin in tests). A peer is named by
 * an opaque id (ZeroMQ's routing id, which a client may choose); the server never trusts that name
 * alone: what a connection proved (the auth token in `hello`) holds only until the transport reports
 * the connection gone, and a later connection presenting the same id starts from nothing.
 */
export type Frames = readonly (Buffer | Uint8Array)[];

/** One message from a peer: its id and its frames, as they arrived. */
export type MessageHandler = (peer: Buffer, frames: Buffer[]) => void;

/**
 * The connection behind `peer` ended. Called after every message it sent; a message that later
 * arrives under the same id comes from a new connection.
 */
export type PeerGoneHandler = (peer: Buffer) => void;

export interface Transport {
  /**
   * Starts taking messages, each handed to `onMessage`, and reporting connections that end to
   * `onPeerGone`; resolves with the address peers reach.
   */
  start(onMessage: MessageHandler, onPeerGone?: PeerGoneHandler): Promise<string>;
  /** Queues a message for a peer; messages to one peer leave in order. A peer that is gone loses it. */
  send(peer: Buffer, frames: Frames): void;
  /** Stops taking and sending (queued messages are dropped) and frees the address. */
  close(): Promise<void>;
}
