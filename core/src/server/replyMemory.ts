/**
 * Memory for huge reply bodies that V8 does not count as external memory (docs/performance.md,
 * fairness).
 *
 * zeromq.js sends a frame of more than 128 bytes without copying it: it holds the Buffer until
 * libzmq's I/O thread has written it and tells JavaScript nothing when that is (its reference is
 * dropped on the main thread; only a garbage collection can see it), so a reply's memory cannot be
 * reused from one reply to the next. A fresh ordinary Buffer per reply is external memory that V8
 * counts, and once that has grown 64 MB since the last full collection V8 starts a full one "for
 * external memory pressure" (finishing it early, mostly atomically, when the next big Buffer comes
 * before marking is done): 100+ ms with 100,000 envs on the heap, which every other client of the
 * server waits through. A 100,000-env step's reply is 12-35 MB, so that came every two or three
 * big steps.
 *
 * A SharedArrayBuffer's memory is not part of that per-isolate count (V8's
 * BackingStore::PerIsolateAccountingLength is 0 for shared memory), so a huge reply is allocated as
 * one: freed by the collector like any other buffer once unreachable, without forcing a collection.
 * What V8 does not see is bounded here: while the process's ArrayBuffer memory (Node's own count,
 * which includes shared memory) is over UNCOUNTED_BUDGET_BYTES, replies are ordinary Buffers again,
 * so V8's own accounting then collects whatever is dead, as before.
 */

/** Replies smaller than this are ordinary Buffers (V8's accounting of them never forces much). */
export const UNCOUNTED_MIN_BYTES = 1 << 20;
/**
 * Shared (uncounted) reply memory only while all ArrayBuffer memory stays under this. Dead replies
 * wait for the next full collection, which the heap's own growth starts every few seconds under a
 * huge tenant (measured: 20-30 MB of dead replies per big step, 200-400 MB held at the peak).
 */
export const UNCOUNTED_BUDGET_BYTES = 512 << 20;

/** What each path served since start (tests count them). */
export const replyMemoryCounters = { shared: 0, ordinary: 0, overBudget: 0 };

/** For tests: the ArrayBuffer memory figure the budget is checked against. */
let arrayBufferBytes = (): number => process.memoryUsage().arrayBuffers;

/** @internal Tests replace the memory reading (null restores it). */
export function setArrayBufferBytesForTests(read: (() => number) | null): void {
  arrayBufferBytes = read ?? (() => process.memoryUsage().arrayBuffers);
}

/** `bytes` to write a reply body into (contents undefined), as a Buffer the transport sends as is. */
export function allocReply(bytes: number): Buffer {
  if (bytes < UNCOUNTED_MIN_BYTES) {
    replyMemoryCounters.ordinary++;
    return Buffer.allocUnsafe(bytes);
  }
  if (arrayBufferBytes() + bytes > UNCOUNTED_BUDGET_BYTES) {
    replyMemoryCounters.overBudget++;
    return Buffer.allocUnsafe(bytes);
  }
  replyMemoryCounters.shared++;
  return Buffer.from(new SharedArrayBuffer(bytes));
}
