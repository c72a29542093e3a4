/**
 * Off-heap scratch space for the text of huge replies, in 1 MiB chunks that are reused from one reply
 * to the next. A 100,000-row reply has ~30 MB of observation text; copied off the JS heap slice by
 * slice (so the strings die young), it would otherwise be ~30 MB of fresh external memory per step on
 * top of the message itself, and V8 answers external memory growing that fast with full, atomic
 * mark-compact collections of the whole heap (100+ ms with 100,000 envs in it; docs/performance.md,
 * fairness). Reused chunks are not new external memory. Idle chunks are dropped after a while, so a
 * server that served one huge tenant does not hold them for good.
 */

export const CHUNK_BYTES = 1 << 20;
/** Idle chunks kept at most (64 MiB), and for how long after the last reply gave some back. */
const MAX_IDLE_CHUNKS = 64;
const IDLE_MS = 10_000;

const idle: Buffer[] = [];
let dropTimer: NodeJS.Timeout | undefined;

/** Chunks handed out since start that were new allocations (tests check the reuse). */
export const scratchCounters = { allocated: 0, reused: 0 };

function takeChunk(): Buffer {
  const c = idle.pop();
  if (c !== undefined) {
    scratchCounters.reused++;
    return c;
  }
  scratchCounters.allocated++;
  return Buffer.allocUnsafeSlow(CHUNK_BYTES);
}

/** Idle chunks now held (tests). */
export function idleScratchChunks(): number {
  return idle.length;
}

/** One reply's scratch: byte ranges taken one after the other; `release` gives its chunks back. */
export class ScratchBytes {
  private readonly chunks: Buffer[] = [];
  private current?: Buffer;
  private used = 0;

  /** `length` bytes to write into, valid until `release`. */
  take(length: number): Buffer {
    if (length > CHUNK_BYTES) return Buffer.allocUnsafeSlow(length); // a huge single slice: not pooled
    if (this.current === undefined || this.used + length > CHUNK_BYTES) {
      this.current = takeChunk();
      this.chunks.push(this.current);
      this.used = 0;
    }
    const view = this.current.subarray(this.used, this.used + length);
    this.used += length;
    return view;
  }

  /** Gives the chunks back for the next reply; nothing taken may be read after this. */
  release(): void {
    for (const c of this.chunks) if (idle.length < MAX_IDLE_CHUNKS) idle.push(c);
    this.chunks.length = 0;
    this.current = undefined;
    if (dropTimer) clearTimeout(dropTimer);
    dropTimer = setTimeout(() => (idle.length = 0), IDLE_MS);
    dropTimer.unref();
  }
}
