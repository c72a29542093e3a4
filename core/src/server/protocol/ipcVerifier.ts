/**
 * A bounds check of Arrow IPC stream bytes before arrow-js reads them. arrow-js trusts every length
 * in the flatbuffer metadata: one flipped bit can announce four billion schema fields and the reader
 * loops until the process runs out of memory (our fuzz test found exactly that). This walks each
 * message's flatbuffers (Message, Schema, Field, RecordBatch, DictionaryBatch) and checks that every
 * table, vector and string lies inside the message, that bodies lie inside the stream, and that row
 * counts are bounded by the bytes present. It reads nothing it does not check; it builds nothing.
 *
 * Layouts follow the Arrow format's Message.fbs and Schema.fbs (field slots in declaration order).
 */
import { GemError } from '../../core/errors.ts';

const MAX_DEPTH = 32;
/** Null-typed columns hold no bytes per row; cap their row counts anyway. */
const MAX_ROWS_WITHOUT_BYTES = 1_000_000;

function fail(why: string): never {
  throw new GemError('INVALID_BODY', `The body is not a valid Arrow IPC stream: ${why}.`);
}

/** A flatbuffer with every read bounds-checked against its own length. */
export class Flat {
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(pos: number, size: number): void {
    if (!Number.isInteger(pos) || pos < 0 || pos + size > this.bytes.length) fail(`metadata offset ${pos} out of bounds`);
  }

  u8(pos: number): number {
    this.need(pos, 1);
    return this.view.getUint8(pos);
  }
  u16(pos: number): number {
    this.need(pos, 2);
    return this.view.getUint16(pos, true);
  }
  i32(pos: number): number {
    this.need(pos, 4);
    return this.view.getInt32(pos, true);
  }
  u32(pos: number): number {
    this.need(pos, 4);
    return this.view.getUint32(pos, true);
  }
  i64(pos: number): number {
    this.need(pos, 8);
    const v = this.view.getBigInt64(pos, true);
    if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) fail(`a length of ${v} is out of range`);
    return Number(v);
  }

  /** Checks the table at `t` and its vtable; returns a reader of field positions (0 = absent). */
  table(t: number): (slot: number) => number {
    const vt = t - this.i32(t);
    const vtSize = this.u16(vt);
    const tSize = this.u16(vt + 2);
    if (vtSize < 4 || vtSize % 2 !== 0) fail('bad vtable');
    this.need(vt, vtSize);
    this.need(t, tSize);
    return (slot: number) => {
      const at = 4 + slot * 2;
      if (at + 2 > vtSize) return 0;
      const off = this.u16(vt + at);
      if (off === 0) return 0;
      if (off >= tSize) fail('field outside its table');
      return t + off;
    };
  }

  /** Follows the uoffset stored at `pos`. */
  deref(pos: number): number {
    const target = pos + this.u32(pos);
    this.need(target, 4);
    return target;
  }

  /** A vector at the uoffset in `pos`: returns [first element position, length], elements checked. */
  vector(pos: number, elemSize: number): [number, number] {
    const v = this.deref(pos);
    const n = this.u32(v);
    this.need(v + 4, n * elemSize);
    return [v + 4, n];
  }

  string(pos: number): void {
    const [start, n] = this.vector(pos, 1);
    this.need(start, n);
  }

  /** The string at the uoffset in `pos`, decoded. */
  text(pos: number): string {
    const [start, n] = this.vector(pos, 1);
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + start, n).toString('utf8');
  }
}

/** [Field] / [KeyValue] / nested tables. */
function checkKeyValues(fb: Flat, pos: number): void {
  if (!pos) return;
  const [start, n] = fb.vector(pos, 4);
  for (let i = 0; i < n; i++) {
    const f = fb.table(fb.deref(start + i * 4));
    if (f(0)) fb.string(f(0));
    if (f(1)) fb.string(f(1));
  }
}

function checkField(fb: Flat, t: number, depth: number): void {
  if (depth > MAX_DEPTH) fail('types nested too deeply');
  const f = fb.table(t);
  if (f(0)) fb.string(f(0)); // name
  if (f(3)) fb.table(fb.deref(f(3))); // type: every Type table holds scalars only
  if (f(4)) {
    const d = fb.table(fb.deref(f(4))); // DictionaryEncoding
    if (d(1)) fb.table(fb.deref(d(1))); // indexType: Int
  }
  if (f(5)) {
    const [start, n] = fb.vector(f(5), 4); // children
    for (let i = 0; i < n; i++) checkField(fb, fb.deref(start + i * 4), depth + 1);
  }
  checkKeyValues(fb, f(6));
}

function checkSchema(fb: Flat, t: number): void {
  const s = fb.table(t);
  if (s(1)) {
    const [start, n] = fb.vector(s(1), 4);
    for (let i = 0; i < n; i++) checkField(fb, fb.deref(start + i * 4), 0);
  }
  checkKeyValues(fb, s(2));
  if (s(3)) fb.vector(s(3), 8);
}

function checkRecordBatch(fb: Flat, t: number, bodyLength: number): void {
  const r = fb.table(t);
  const rowCap = Math.max(bodyLength * 8, MAX_ROWS_WITHOUT_BYTES);
  const length = r(0) ? fb.i64(r(0)) : 0;
  if (length > rowCap) fail(`a batch claims ${length} rows in ${bodyLength} bytes`);
  if (r(1)) {
    const [start, n] = fb.vector(r(1), 16); // FieldNode { length: long, null_count: long }
    for (let i = 0; i < n; i++) {
      const nodeLength = fb.i64(start + i * 16);
      const nulls = fb.i64(start + i * 16 + 8);
      if (nodeLength > rowCap || nulls > nodeLength) fail(`column node ${i} claims ${nodeLength} rows`);
    }
  }
  if (r(2)) {
    const [start, n] = fb.vector(r(2), 16); // Buffer { offset: long, length: long }
    for (let i = 0; i < n; i++) {
      const offset = fb.i64(start + i * 16);
      const len = fb.i64(start + i * 16 + 8);
      if (offset + len > bodyLength) fail(`buffer ${i} lies outside the message body`);
    }
  }
  if (r(3)) fb.table(fb.deref(r(3))); // compression
  if (r(4)) fb.vector(r(4), 8);
}

const HEADER_SCHEMA = 1;
const HEADER_DICTIONARY_BATCH = 2;
const HEADER_RECORD_BATCH = 3;

/**
 * Throws INVALID_BODY unless `bytes` is a well-bounded Arrow IPC stream. With `requireEnd` the stream
 * must close with its end-of-stream marker and nothing after it: a body cut short at a message
 * boundary would otherwise read as a smaller table (a pushed dataset missing its last rows).
 */
export function verifyIpcStream(bytes: Uint8Array, opts: { requireEnd?: boolean } = {}): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  let messages = 0;
  let sawSchema = false;
  while (pos + 4 <= bytes.length) {
    let size = view.getInt32(pos, true);
    pos += 4;
    if (size === -1) {
      if (pos + 4 > bytes.length) fail('truncated message length');
      size = view.getInt32(pos, true);
      pos += 4;
    }
    if (size === 0) {
      // end of stream
      if (opts.requireEnd && pos !== bytes.length) fail(`${bytes.length - pos} bytes follow the end-of-stream marker`);
      return;
    }
    if (size < 0 || pos + size > bytes.length) fail(`a message of ${size} bytes does not fit in the stream`);
    const fb = new Flat(bytes.subarray(pos, pos + size));
    const m = fb.table(fb.deref(0));
    const headerType = m(1) ? fb.u8(m(1)) : 0;
    const bodyLength = m(3) ? fb.i64(m(3)) : 0;
    if (pos + size + bodyLength > bytes.length) fail(`a message body of ${bodyLength} bytes does not fit in the stream`);
    if (!m(2)) fail('a message without a header');
    const header = fb.deref(m(2));
    if (headerType === HEADER_SCHEMA) {
      checkSchema(fb, header);
      sawSchema = true;
    } else if (headerType === HEADER_RECORD_BATCH) {
      checkRecordBatch(fb, header, bodyLength);
    } else if (headerType === HEADER_DICTIONARY_BATCH) {
      const d = fb.table(header);
      if (d(1)) checkRecordBatch(fb, fb.deref(d(1)), bodyLength);
    } else {
      fail(`message type ${headerType} is not expected in a stream`);
    }
    if (!sawSchema) fail('the stream does not start with a schema');
    checkKeyValues(fb, m(4));
    pos += size + bodyLength;
    messages++;
  }
  if (messages === 0) fail('no messages');
  if (opts.requireEnd) {
    fail(
      pos < bytes.length
        ? `the stream ends in ${bytes.length - pos} stray bytes instead of its end-of-stream marker: it was cut short`
        : 'the stream ends without its end-of-stream marker: it was cut short (a writer closes the stream to write it)',
    );
  }
}
