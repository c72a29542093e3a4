/**
 * The server's seam to the wire: whatever carries multipart messages between the server and its
 * peers (a ZeroMQ ROUTER socket in `gem-ts serve`, an in-memory twin in tests). A peer is named by
 * an opaque id the transport assigns (ZeroMQ's routing id); the server keys its sessions by it.
 */
export type Frames = readonly (Buffer | Uint8Array)[];

/** One message from a peer: its id and its frames, as they arrived. */
export type MessageHandler = (peer: Buffer, frames: Buffer[]) => void;

export interface Transport {
  /** Starts taking messages, each handed to `onMessage`; resolves with the address peers reach. */
  start(onMessage: MessageHandler): Promise<string>;
  /** Queues a message for a peer; messages to one peer leave in order. A peer that is gone loses it. */
  send(peer: Buffer, frames: Frames): void;
  /** Stops taking and sending (queued messages are dropped) and frees the address. */
  close(): Promise<void>;
}
