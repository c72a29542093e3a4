/**
 * A lean reader for step request bodies (schema STEP_REQUEST: env_index int32, action utf8). It walks
 * the stream's flatbuffers itself (every read bounds-checked by Flat) and reads the two columns
 * straight from the body, skipping arrow-js's general reader, which costs ~100 µs a message before a
 * single row. Streams with several record batches are read in order; anything else about the stream
 * (another schema, nulls, compression, dictionaries) is INVALID_BODY.
 */
import { GemError } from '../../core/errors.ts';
import { Flat } from './ipcVerifier.ts';

const HEADER_SCHEMA = 1;
const HEADER_RECORD_BATCH = 3;
/** Schema.fbs `Type` union tags. */
const TYPE_NAMES: Record<number, string> = { 1: 'Null', 2: 'Int', 3: 'FloatingPoint', 4: 'Binary', 5: 'Utf8', 6: 'Bool', 20: 'LargeUtf8', 19: 'LargeBinary' };
const TYPE_INT = 2;

function invalid(message: string): never {
  throw new GemError('INVALID_BODY', message);
}

interface FieldInfo {
  name: string;
  type: string;
}

function readField(fb: Flat, t: number): FieldInfo {
  const f = fb.table(t);
  const name = f(0) ? fb.text(f(0)) : '';
  const tag = f(2) ? fb.u8(f(2)) : 0;
  let type = TYPE_NAMES[tag] ?? `type#${tag}`;
  if (tag === TYPE_INT && f(3)) {
    const int = fb.table(fb.deref(f(3)));
    const bits = int(0) ? fb.i32(int(0)) : 0;
    const signed = int(1) ? fb.u8(int(1)) !== 0 : false;
    type = `${signed ? 'Int' : 'Uint'}${bits}`;
  }
  if (f(4)) type = `Dictionary<${type}>`;
  return { name, type };
}

const EXPECTED = 'env_index:Int32, action:Utf8';

/** Reads rows [from, to) of one record batch into the request's columns. */
type RowReader = { length: number; read: (from: number, to: number) => void };

interface StepRequestColumns {
  indices: number[];
  actions: string[];
}

/** The columns of a step request body, or INVALID_BODY. */
export function readStepRequest(bytes: Uint8Array): StepRequestColumns {
  const { columns, batches } = parseStepRequest(bytes);
  for (const b of batches) b.read(0, b.length);
  return columns;
}

/**
 * readStepRequest reading at most `sliceRows` rows per turn of the event loop: decoding 100,000
 * actions would otherwise hold the server for tens of ms (fairness). The stream's structure is
 * checked before the first yield.
 */
export async function readStepRequestSliced(bytes: Uint8Array, sliceRows: number, pause: () => Promise<void>): Promise<StepRequestColumns> {
  const { columns, batches } = parseStepRequest(bytes);
  let sinceYield = 0;
  for (const b of batches) {
    for (let from = 0; from < b.length; from += sliceRows) {
      if (sinceYield >= sliceRows) {
        await pause();
        sinceYield = 0;
      }
      const to = Math.min(b.length, from + sliceRows);
      b.read(from, to);
      sinceYield += to - from;
    }
  }
  return columns;
}

function parseStepRequest(bytes: Uint8Array): { columns: StepRequestColumns; batches: RowReader[] } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const indices: number[] = [];
  const actions: string[] = [];
  const batches: RowReader[] = [];
  let sawSchema = false;
  let pos = 0;
  while (pos + 4 <= bytes.length) {
    let size = view.getInt32(pos, true);
    pos += 4;
    if (size === -1) {
      size = pos + 4 <= bytes.length ? view.getInt32(pos, true) : invalid('truncated message length');
      pos += 4;
    }
    if (size === 0) break;
    if (size < 0 || pos + size > bytes.length) invalid('a message does not fit in the body');
    const fb = new Flat(bytes.subarray(pos, pos + size));
    const m = fb.table(fb.deref(0));
    const headerType = m(1) ? fb.u8(m(1)) : 0;
    const bodyLength = m(3) ? fb.i64(m(3)) : 0;
    const bodyStart = pos + size;
    if (bodyStart + bodyLength > bytes.length || !m(2)) invalid('a message body does not fit in the body');
    const header = fb.deref(m(2));
    if (headerType === HEADER_SCHEMA) {
      const s = fb.table(header);
      const fields: FieldInfo[] = [];
      if (s(1)) {
        const [start, n] = fb.vector(s(1), 4);
        for (let i = 0; i < n; i++) fields.push(readField(fb, fb.deref(start + i * 4)));
      }
      const got = fields.map((f) => `${f.name}:${f.type}`).join(', ');
      if (got !== EXPECTED) invalid(`The step request body must have the schema (${EXPECTED}), got (${got}).`);
      sawSchema = true;
    } else if (headerType === HEADER_RECORD_BATCH && sawSchema) {
      batches.push(batchReader(fb, header, view, bodyStart, bodyLength, indices, actions));
    } else {
      invalid(sawSchema ? `unexpected message type ${headerType} in a step request` : 'the body does not start with a schema');
    }
    pos = bodyStart + bodyLength;
  }
  if (!sawSchema) invalid('The body is not an Arrow IPC stream (no schema found).');
  // number[] as the vector layer takes it: no typed array in between.
  return { columns: { indices, actions }, batches };
}

/** Checks one record batch's layout; its rows are read later, in ranges, in order. */
function batchReader(fb: Flat, t: number, view: DataView, bodyStart: number, bodyLength: number, envIndex: number[], actions: string[]): RowReader {
  const r = fb.table(t);
  const length = r(0) ? fb.i64(r(0)) : 0;
  if (r(3)) invalid('compressed step request bodies are not supported');
  const [nodesAt, nodeCount] = r(1) ? fb.vector(r(1), 16) : [0, 0];
  const [bufsAt, bufCount] = r(2) ? fb.vector(r(2), 16) : [0, 0];
  if (nodeCount !== 2 || bufCount !== 5) invalid('a step request batch must hold the two columns env_index and action');
  for (let i = 0; i < 2; i++) {
    if (fb.i64(nodesAt + i * 16) !== length) invalid('a column length differs from the batch length');
    if (fb.i64(nodesAt + i * 16 + 8) !== 0) invalid(`Column '${i === 0 ? 'env_index' : 'action'}' has nulls.`);
  }
  const region = (k: number, minBytes: number): number => {
    const offset = fb.i64(bufsAt + k * 16);
    const len = fb.i64(bufsAt + k * 16 + 8);
    if (offset + len > bodyLength || len < minBytes) invalid(`buffer ${k} of the step request is too short`);
    return bodyStart + offset;
  };
  const ints = region(1, length * 4);
  const offs = region(3, length === 0 ? 0 : (length + 1) * 4);
  const dataAt = region(4, 0);
  const dataLen = fb.i64(bufsAt + 4 * 16 + 8);
  if (length === 0) return { length: 0, read: () => undefined };
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset + dataAt, dataLen);
  const first = view.getInt32(offs, true);
  const last = view.getInt32(offs + length * 4, true);
  if (first < 0 || last > dataLen || first > last) invalid('action offsets lie outside the action bytes');
  // One decode for the whole column; one char per byte means byte offsets are char offsets.
  const whole = buf.toString('utf8', first, last);
  const ascii = whole.length === last - first;
  let prev = first;
  const read = (from: number, to: number): void => {
    for (let i = from; i < to; i++) envIndex.push(view.getInt32(ints + i * 4, true));
    for (let i = from + 1; i <= to; i++) {
      const cur = view.getInt32(offs + i * 4, true);
      if (cur < prev || cur > last) invalid('action offsets are not increasing');
      actions.push(ascii ? whole.slice(prev - first, cur - first) : buf.toString('utf8', prev, cur));
      prev = cur;
    }
  };
  return { length, read };
}
