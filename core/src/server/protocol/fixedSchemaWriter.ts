/**
 * A lean Arrow IPC stream writer for the fixed ROWS schema. arrow-js's general writer visits every
 * vector, joins many small buffers and allocates as it goes: ~300 µs a message before a single row
 * (measured), more than the env steps of a small batch. Here the schema message is encoded once, the
 * two batch messages (dictionary and record batch) are encoded from metadata we fill in ourselves,
 * and every buffer is copied once into one preallocated output. The layout is the one arrow-js's
 * writer produces (buffers 8-byte aligned, empty validity buffers for columns without nulls), so the
 * bytes are the same as before and readers cannot tell the difference.
 */
import { MessageHeader, type Schema } from 'apache-arrow';
import {
  BufferRegion,
  DictionaryBatch,
  FieldNode,
  Message,
  RecordBatch as RecordBatchMeta,
} from 'apache-arrow/ipc/metadata/message';

/** Bytes, or ASCII text (one byte per character, copied straight into the message). */
type BufferPart = Uint8Array | string;

/**
 * One buffer of a column: bytes or ASCII text, parts of them written one after the other (a column
 * built in slices is never joined first), or `null` for an absent validity bitmap (no nulls).
 */
export type ColumnBuffer = BufferPart | BufferPart[] | null;
/** Column buffers in schema order. */
export type ColumnBuffers = { length: number; buffers: ColumnBuffer[] }[];

const partLength = (b: BufferPart): number => (typeof b === 'string' ? b.length : b.byteLength);
const byteLength = (b: ColumnBuffer): number => {
  if (b === null) return 0;
  if (!Array.isArray(b)) return partLength(b);
  let n = 0;
  for (const part of b) n += partLength(part);
  return n;
};

function writePart(out: Buffer, pos: number, b: BufferPart): number {
  if (typeof b === 'string') out.write(b, pos, b.length, 'latin1');
  else out.set(b, pos);
  return pos + partLength(b);
}

const CONTINUATION = 0xffffffff;
const pad8 = (n: number) => (n + 7) & ~7;

/** A framed message: continuation, size, flatbuffer, padding to 8 (what arrow-js writes). */
function frameSize(metadata: Uint8Array): number {
  return pad8(metadata.byteLength + 8);
}

function writeFramed(out: Buffer, pos: number, metadata: Uint8Array): number {
  const size = frameSize(metadata);
  out.writeUInt32LE(CONTINUATION, pos);
  out.writeInt32LE(size - 8, pos + 4);
  out.set(metadata, pos + 8);
  out.fill(0, pos + 8 + metadata.byteLength, pos + size);
  return pos + size;
}

/** Body layout of some columns: regions (offset, length) and the total padded size. */
function layout(columns: ColumnBuffers): { nodes: FieldNode[]; regions: BufferRegion[]; bodyLength: number } {
  const nodes: FieldNode[] = [];
  const regions: BufferRegion[] = [];
  let offset = 0;
  for (const col of columns) {
    nodes.push(new FieldNode(col.length, 0));
    for (const b of col.buffers) {
      const len = byteLength(b);
      regions.push(new BufferRegion(offset, len));
      offset += pad8(len);
    }
  }
  return { nodes, regions, bodyLength: offset };
}

/**
 * Copies the columns' buffers into `out` from `pos`, yielding (the position reached) each time at
 * least `sliceBytes` have been copied since the last yield; returns the end position.
 */
function* writeBody(out: Buffer, pos: number, columns: ColumnBuffers, sliceBytes: number): Generator<number, number> {
  let since = 0;
  for (const col of columns) {
    for (const b of col.buffers) {
      const len = byteLength(b);
      if (len === 0) continue;
      const parts = Array.isArray(b) ? b : [b!];
      let at = pos;
      for (const part of parts) {
        at = writePart(out, at, part);
        since += partLength(part);
        if (since >= sliceBytes) {
          since = 0;
          yield at;
        }
      }
      const end = pos + pad8(len);
      out.fill(0, pos + len, end);
      pos = end;
    }
  }
  return pos;
}

export class FixedSchemaWriter {
  private readonly schemaMessage: Uint8Array;

  constructor(schema: Schema) {
    this.schemaMessage = Message.encode(Message.from(schema));
  }

  /**
   * One stream: schema, an optional dictionary batch (id 0, one Utf8 column), one record batch, EOS.
   */
  write(length: number, columns: ColumnBuffers, dictionary?: ColumnBuffers[number]): Uint8Array {
    const steps = this.steps(length, columns, dictionary, Infinity);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  }

  /**
   * write() that awaits `pause()` each time about `sliceBytes` of column data have been copied, so
   * copying a reply of tens of MB into its message never holds the event loop in one piece. Same
   * bytes; the message is written into `alloc(total)` (the server's reply memory, replyMemory.ts).
   */
  async writeSliced(
    length: number,
    columns: ColumnBuffers,
    dictionary: ColumnBuffers[number] | undefined,
    sliceBytes: number,
    pause: () => Promise<void>,
    alloc: (bytes: number) => Buffer = Buffer.allocUnsafe,
  ): Promise<Uint8Array> {
    const steps = this.steps(length, columns, dictionary, sliceBytes, alloc);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      await pause();
    }
  }

  private *steps(
    length: number,
    columns: ColumnBuffers,
    dictionary: ColumnBuffers[number] | undefined,
    sliceBytes: number,
    alloc: (bytes: number) => Buffer = Buffer.allocUnsafe,
  ): Generator<number, Uint8Array> {
    const batch = layout(columns);
    const batchMeta = Message.encode(
      Message.from(new RecordBatchMeta(length, batch.nodes, batch.regions, null), batch.bodyLength) as Message<MessageHeader.RecordBatch>,
    );
    let dictMeta: Uint8Array | undefined;
    let dict: ReturnType<typeof layout> | undefined;
    if (dictionary) {
      dict = layout([dictionary]);
      const rb = new RecordBatchMeta(dictionary.length, dict.nodes, dict.regions, null);
      dictMeta = Message.encode(Message.from(new DictionaryBatch(rb, 0, false), dict.bodyLength) as Message<MessageHeader.DictionaryBatch>);
    }
    const total =
      frameSize(this.schemaMessage) +
      (dictMeta ? frameSize(dictMeta) + dict!.bodyLength : 0) +
      frameSize(batchMeta) +
      batch.bodyLength +
      8;
    const out = alloc(total);
    let pos = writeFramed(out, 0, this.schemaMessage);
    if (dictMeta) {
      pos = writeFramed(out, pos, dictMeta);
      pos = yield* writeBody(out, pos, [dictionary!], sliceBytes);
    }
    pos = writeFramed(out, pos, batchMeta);
    pos = yield* writeBody(out, pos, columns, sliceBytes);
    out.writeUInt32LE(CONTINUATION, pos);
    out.writeInt32LE(0, pos + 4);
    return new Uint8Array(out.buffer, out.byteOffset, total);
  }
}
