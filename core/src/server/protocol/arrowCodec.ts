/**
 * Arrow IPC stream codecs for the fixed per-op schemas of protocol v1 (docs/protocol.md §Bodies).
 * Columns go from typed arrays straight into the stream (FixedSchemaWriter) and strings are read from
 * the raw offsets/bytes, because at 1,024 rows a message arrow-js's general writer and per-value
 * decoding would cost more than the env steps themselves.
 */
import { Bool, Dictionary, Field, Float64, Int32, Schema, Utf8, tableFromIPC, type Table, type Vector } from 'apache-arrow';
import { GemError } from '../../core/errors.ts';
import type { Info } from '../../core/env.ts';
import { validateTable } from './arrowValidate.ts';
import { verifyIpcStream } from './ipcVerifier.ts';
import { FixedSchemaWriter, type ColumnBuffer } from './fixedSchemaWriter.ts';
import { ScratchBytes } from './scratchBytes.ts';
import { allocReply } from '../replyMemory.ts';
import { readStepRequest, readStepRequestSliced } from './stepRequestReader.ts';
import type { VectorResetResult, VectorStepResult } from '../../vector/types.ts';
import { yieldToEventLoop, type SliceSink } from '../../vector/vectorEnvBase.ts';

/** Step request body: which env (index within the handle) gets which action. */
export const STEP_REQUEST_SCHEMA = new Schema([
  new Field('env_index', new Int32(), false),
  new Field('action', new Utf8(), false),
]);

/**
 * Reset/step reply body. `info` is JSON text, dictionary-encoded: most rows of a batch carry one of a
 * few distinct infos, so the client parses each distinct one once.
 */
export const ROWS_SCHEMA = new Schema([
  new Field('env_index', new Int32(), false),
  new Field('observation', new Utf8(), false),
  new Field('reward', new Float64(), false),
  new Field('terminated', new Bool(), false),
  new Field('truncated', new Bool(), false),
  new Field('info', new Dictionary(new Utf8(), new Int32(), 0), false),
]);

/** Step request columns: which env (index within the handle) gets which action (EnvPool.send's arguments). */
export interface StepRequestRows {
  indices: number[];
  actions: string[];
}

/**
 * Reply rows are the vector layer's own batches, encoded as they come: a step's rows, or a reset's
 * (reward 0, both flags false).
 */
export type Rows = VectorStepResult | VectorResetResult;

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/**
 * A Utf8 column built a range of rows at a time. Fast path per range: join its strings; when the
 * UTF-8 byte count equals the character count every string is ASCII, the offsets are the running
 * character counts and the joined text itself is the data, written straight into the message (no
 * intermediate Buffer). Otherwise each string is encoded at its own offset. Any split into ranges
 * gives the same bytes. With `scratch`, every range's bytes are copied out of the JS heap at once,
 * into reused off-heap chunks, so neither the joined text nor the rows' strings outlive the range
 * (see RowsStream).
 */
class Utf8Builder {
  readonly offsets: Int32Array;
  private readonly chunks: (string | Uint8Array)[] = [];
  private pos = 0;

  constructor(
    private readonly values: readonly string[],
    private readonly scratch?: ScratchBytes,
  ) {
    this.offsets = new Int32Array(values.length + 1);
  }

  add(from: number, to: number): void {
    const values = this.values;
    const joined = from === 0 && to === values.length ? values.join('') : values.slice(from, to).join('');
    const byteLength = Buffer.byteLength(joined, 'utf8');
    let pos = this.pos;
    if (byteLength === joined.length) {
      for (let i = from; i < to; i++) this.offsets[i + 1] = pos += values[i].length;
      if (this.scratch) {
        const bytes = this.scratch.take(byteLength);
        bytes.write(joined, 0, byteLength, 'latin1');
        this.chunks.push(bytesOf(bytes));
      } else this.chunks.push(joined);
    } else {
      const bytes = this.scratch ? this.scratch.take(byteLength) : Buffer.allocUnsafe(byteLength);
      let at = 0;
      for (let i = from; i < to; i++) {
        const w = bytes.write(values[i], at, 'utf8');
        at += w;
        this.offsets[i + 1] = pos += w;
      }
      this.chunks.push(bytesOf(bytes));
    }
    this.pos = pos;
  }

  /** The column's bytes: its slices' parts, written into the message one after the other. */
  data(): ColumnBuffer {
    return this.chunks.length === 1 ? this.chunks[0] : this.chunks;
  }
}

function utf8Column(values: readonly string[]): { length: number; buffers: ColumnBuffer[] } {
  const b = new Utf8Builder(values);
  b.add(0, values.length);
  return { length: values.length, buffers: [null, bytesOf(b.offsets), b.data()] };
}

function boolBits(values: ArrayLike<boolean>): Uint8Array {
  const n = values.length;
  const bits = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) if (values[i]) bits[i >> 3] |= 1 << (i & 7);
  return bits;
}

/**
 * Same keys with the same primitive values (objects inside never count as equal here). Counted with
 * for-in, no key arrays: this runs for most rows of every reply.
 */
function sameFlatInfo(a: Info, b: Info): boolean {
  let keys = 0;
  for (const k in a) {
    const v = a[k];
    if ((typeof v === 'object' && v !== null) || v !== b[k] || (v === undefined && !(k in b))) return false;
    keys++;
  }
  for (const _ in b) keys--;
  return keys === 0;
}

const isPlain = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

function isFlat(o: Info): boolean {
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'object' && v !== null) return false;
  }
  return true;
}

/**
 * A trie of infos: an info is the path of its keys and primitive values in order (a nested object's
 * own path between OPEN and CLOSE), so equal infos end at one node and different ones never do (keys,
 * strings, numbers and booleans are told apart by the Map; -0 and 0 are one key, as they are one
 * JSON text). No key text is built: each step is a Map look-up, where a string's hash is computed once.
 */
type TrieNode = Map<unknown, TrieNode>;
const OPEN = Symbol('{');
const CLOSE = Symbol('}');
/** Under this key a path's last node holds its entry (a number, in a Map of TrieNodes). */
const ENTRY = Symbol('entry');

function child(node: TrieNode, key: unknown): TrieNode {
  let c = node.get(key);
  if (c === undefined) {
    c = new Map();
    node.set(key, c);
  }
  return c;
}

/**
 * Where `o`'s path ends, for a plain object of strings, finite numbers, booleans and up to `depth`
 * levels of such objects; undefined for anything else (arrays, nulls, class instances…).
 */
function walk(node: TrieNode, o: Info, depth: number): TrieNode | undefined {
  for (const k in o) {
    const v = o[k];
    node = child(node, k);
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) node = child(node, v);
    else if (typeof v === 'object' && v !== null && depth > 0 && isPlain(v)) {
      const inner = walk(child(node, OPEN), v as Info, depth - 1);
      if (inner === undefined) return undefined;
      node = child(inner, CLOSE);
    } else return undefined;
  }
  return node;
}

/**
 * Dictionary-encodes JSON texts of the infos, a range of rows at a time. A flat info equal to the
 * previous flat one (every env returns a fresh `{suffix: …}`) reuses its entry; nested ones (autoreset
 * rows: `final_obs`, `final_info`; a third of a batch, a few dozen distinct) are matched in a trie of
 * their keys and values; only a distinct info is ever JSON.stringify'd.
 */
class InfoDictionary {
  readonly indices: Int32Array;
  readonly texts: string[] = [];
  private readonly byText = new Map<string, number>();
  private readonly trie: TrieNode = new Map();
  private lastFlat: Info | undefined;
  private lastFlatIdx = -1;

  constructor(private readonly infos: readonly Info[]) {
    this.indices = new Int32Array(infos.length);
  }

  private entry(obj: Info | undefined): number {
    const text = JSON.stringify(obj ?? {});
    let idx = this.byText.get(text);
    if (idx === undefined) {
      idx = this.texts.length;
      this.texts.push(text);
      this.byText.set(text, idx);
    }
    return idx;
  }

  add(from: number, to: number): void {
    const { infos, indices } = this;
    for (let i = from; i < to; i++) {
      const obj = infos[i];
      const lastFlat = this.lastFlat;
      if (obj === lastFlat || (lastFlat !== undefined && obj && sameFlatInfo(obj, lastFlat))) {
        indices[i] = this.lastFlatIdx;
        continue;
      }
      if (!obj || isFlat(obj)) {
        this.lastFlat = obj;
        indices[i] = this.lastFlatIdx = this.entry(obj);
        continue;
      }
      const end = isPlain(obj) ? walk(this.trie, obj, 2) : undefined;
      if (end === undefined) {
        indices[i] = this.entry(obj);
        continue;
      }
      let idx = end.get(ENTRY) as number | undefined;
      if (idx === undefined) {
        idx = this.entry(obj);
        end.set(ENTRY, idx as unknown as TrieNode);
      }
      indices[i] = idx;
    }
  }
}

const stepRequestWriter = new FixedSchemaWriter(STEP_REQUEST_SCHEMA);
const rowsWriter = new FixedSchemaWriter(ROWS_SCHEMA);

export function encodeStepRequest(rows: StepRequestRows): Uint8Array {
  if (rows.indices.length !== rows.actions.length) {
    throw new GemError('INVALID_BODY', 'env_index and action columns differ in length.');
  }
  const n = rows.actions.length;
  return stepRequestWriter.write(n, [{ length: n, buffers: [null, bytesOf(Int32Array.from(rows.indices))] }, utf8Column(rows.actions)]);
}

/** The reply body of some rows, built range by range (observation text and info dictionary). */
class RowsEncoder {
  private readonly observations: Utf8Builder;
  private readonly infos: InfoDictionary;

  constructor(
    private readonly rows: Rows,
    scratch?: ScratchBytes,
  ) {
    this.observations = new Utf8Builder(rows.observations, scratch);
    this.infos = new InfoDictionary(rows.infos);
  }

  add(from: number, to: number): void {
    this.observations.add(from, to);
    this.infos.add(from, to);
  }

  /** The message: one piece, or (with `sliceBytes`) copied in parts with a yield between them. */
  finish(): Uint8Array;
  finish(sliceBytes: number): Promise<Uint8Array>;
  finish(sliceBytes?: number): Uint8Array | Promise<Uint8Array> {
    const rows = this.rows;
    const n = rows.observations.length;
    // The index column is the one conversion of the row type: the vector layer's number[] to int32.
    const envIndex = Int32Array.from(rows.indices);
    const step = 'rewards' in rows ? rows : undefined;
    const rewards = step ? step.rewards : new Float64Array(n);
    const noFlags = new Uint8Array((n + 7) >> 3);
    const columns = [
      { length: n, buffers: [null, bytesOf(envIndex)] },
      { length: n, buffers: [null, bytesOf(this.observations.offsets), this.observations.data()] },
      { length: n, buffers: [null, bytesOf(rewards)] },
      { length: n, buffers: [null, step ? boolBits(step.terminated) : noFlags] },
      { length: n, buffers: [null, step ? boolBits(step.truncated) : noFlags] },
      { length: n, buffers: [null, bytesOf(this.infos.indices)] },
    ];
    const dictionary = utf8Column(this.infos.texts);
    if (sliceBytes === undefined) return rowsWriter.write(n, columns, dictionary);
    return rowsWriter.writeSliced(n, columns, dictionary, sliceBytes, yieldToEventLoop, allocReply);
  }
}

export function encodeRows(rows: Rows): Uint8Array {
  const e = new RowsEncoder(rows);
  e.add(0, rows.observations.length);
  return e.finish();
}

/**
 * Bytes of a reply copied into its message per turn of the event loop (a few hundred µs of memcpy on a
 * free core): a 30 MB reply otherwise holds the loop for ~10 ms, more on a busy machine.
 */
export const COPY_SLICE_BYTES = 1 << 20;

/**
 * encodeRows in slices of `sliceRows` rows with a yield to the event loop between them, so encoding
 * a 100,000-row reply never holds other clients' requests for more than a slice; the rows are then
 * copied into the message COPY_SLICE_BYTES at a time. Same bytes.
 */
export function encodeRowsSliced(rows: Rows, sliceRows: number): Promise<Uint8Array> {
  return new RowsStream().finish(rows, sliceRows);
}

/** What stands in for a row's info once it is encoded. */
const RELEASED_INFO: Info = Object.freeze({}) as Info;

/**
 * A reply body encoded while its step runs: `onSlice` (the vector layer's SliceSink) encodes each
 * slice's rows as soon as they are written, and then drops the batch's references to their
 * observation strings and infos, copied off the JS heap (into reused scratch chunks) by then. The
 * rows of a huge step so die young instead of living until the last slice: the garbage collector's
 * young-generation scavenges then find almost nothing alive to copy, and nothing is promoted to the
 * old generation (measured in docs/performance.md, fairness). `finish` encodes whatever rows
 * `onSlice` did not see (all of them when the batch did not run in slices) and builds the message,
 * copying it in COPY_SLICE_BYTES parts.
 */
export class RowsStream {
  private encoder?: RowsEncoder;
  private rows?: Rows;
  private readonly scratch = new ScratchBytes();
  private encoded = 0;
  /** Slices encoded as the step ran (tests count them). */
  slicesSeen = 0;

  readonly onSlice: SliceSink = (rows, from, to) => {
    if (this.rows === undefined) {
      this.rows = rows;
      this.encoder = new RowsEncoder(rows, this.scratch);
    }
    if (rows !== this.rows || from !== this.encoded) return; // not the next rows of this batch: left to finish()
    this.encoder!.add(from, to);
    const { observations, infos } = rows;
    for (let k = from; k < to; k++) {
      observations[k] = '';
      infos[k] = RELEASED_INFO;
    }
    this.encoded = to;
    this.slicesSeen++;
  };

  async finish(rows: Rows, sliceRows: number): Promise<Uint8Array> {
    if (this.rows !== rows) {
      this.rows = rows;
      this.encoder = new RowsEncoder(rows, this.scratch);
      this.encoded = 0;
    }
    const n = rows.observations.length;
    for (let from = this.encoded; from < n; from += sliceRows) {
      if (from > this.encoded) await yieldToEventLoop();
      this.encoder!.add(from, Math.min(n, from + sliceRows));
    }
    this.encoded = n;
    let out: Uint8Array;
    try {
      out = await this.encoder!.finish(COPY_SLICE_BYTES);
    } finally {
      this.scratch.release();
    }
    return out;
  }
}

/**
 * Parses Arrow IPC stream bytes; anything that is not a stream, or whose buffers do not back the
 * rows its metadata claims, is INVALID_BODY, never a crash.
 */
export function readTable(bytes: Uint8Array, opts: { requireEnd?: boolean } = {}): Table {
  verifyIpcStream(bytes, opts);
  let table: Table;
  try {
    table = tableFromIPC(bytes);
  } catch (e) {
    throw new GemError('INVALID_BODY', `The body is not an Arrow IPC stream: ${(e as Error).message}`);
  }
  if (table.schema.fields.length === 0) {
    throw new GemError('INVALID_BODY', 'The body is not an Arrow IPC stream (no schema found).');
  }
  validateTable(table);
  return table;
}

function describeSchema(schema: Schema): string {
  return schema.fields.map((f) => `${f.name}:${f.type}`).join(', ');
}

/** Checks that `table` has exactly the expected column names and types (nullability aside). */
function expectSchema(table: Table, expected: Schema, what: string): void {
  const got = table.schema.fields;
  const ok =
    got.length === expected.fields.length &&
    expected.fields.every((f, i) => got[i].name === f.name && String(got[i].type) === String(f.type));
  if (!ok) {
    throw new GemError(
      'INVALID_BODY',
      `The ${what} body must have the schema (${describeSchema(expected)}), got (${describeSchema(table.schema)}).`,
    );
  }
}

/**
 * Strings of a Utf8 column, read from its raw buffers chunk by chunk. Fast path as in utf8Data: decode
 * the chunk's bytes once; if that gave one char per byte, rows are slices of that one string.
 */
function readUtf8(vec: Vector, column: string): string[] {
  const out: string[] = new Array(vec.length);
  let k = 0;
  for (const data of vec.data) {
    if (data.nullCount > 0) {
      for (let i = 0; i < data.length; i++) {
        if (!data.getValid(i)) throw new GemError('INVALID_BODY', `Column '${column}' has a null at row ${k + i}.`);
      }
    }
    const offsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const first = data.length ? offsets[data.offset] : 0;
    const last = data.length ? offsets[data.offset + data.length] : 0;
    // One char per byte means no multi-byte sequence anywhere, so byte offsets are char offsets.
    const whole = buf.toString('utf8', first, last);
    const ascii = whole.length === last - first;
    for (let i = 0; i < data.length; i++) {
      const a = offsets[data.offset + i];
      const b = offsets[data.offset + i + 1];
      out[k++] = ascii ? whole.slice(a - first, b - first) : buf.toString('utf8', a, b);
    }
  }
  return out;
}

function readInt32(vec: Vector, column: string): Int32Array {
  if (vec.nullCount > 0) throw new GemError('INVALID_BODY', `Column '${column}' has nulls.`);
  if (vec.data.length === 1) {
    const d = vec.data[0];
    return (d.values as Int32Array).subarray(d.offset, d.offset + d.length);
  }
  return Int32Array.from(vec.toArray() as Int32Array);
}

export function decodeStepRequest(bytes: Uint8Array): StepRequestRows {
  verifyIpcStream(bytes);
  return readStepRequest(bytes);
}

/** decodeStepRequest reading its rows in slices of `sliceRows`, yielding between them (fairness). */
export function decodeStepRequestSliced(bytes: Uint8Array, sliceRows: number): Promise<StepRequestRows> {
  try {
    verifyIpcStream(bytes);
    return readStepRequestSliced(bytes, sliceRows, yieldToEventLoop);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Decodes a reset/step reply body (used by the TypeScript tests and tools that act as clients). */
export function decodeRows(bytes: Uint8Array): VectorStepResult {
  const table = readTable(bytes);
  expectSchema(table, ROWS_SCHEMA, 'rows');
  const info = table.getChildAt(5)!;
  const infos: Info[] = [];
  for (let i = 0; i < info.length; i++) infos.push(JSON.parse(info.get(i) as string) as Info);
  const bools = (v: Vector) => Array.from({ length: v.length }, (_, i) => Boolean(v.get(i)));
  return {
    indices: Array.from(readInt32(table.getChildAt(0)!, 'env_index')),
    observations: readUtf8(table.getChildAt(1)!, 'observation'),
    rewards: Float64Array.from(table.getChildAt(2)!.toArray() as Float64Array),
    terminated: bools(table.getChildAt(3)!),
    truncated: bools(table.getChildAt(4)!),
    infos,
  };
}

/**
 * Any Arrow table (register_dataset) as plain rows; BigInts become numbers when they fit. The stream
 * must be whole, end-of-stream marker included: a table is kept, so a cut one is refused.
 */
export function tableToRows(bytes: Uint8Array): Record<string, unknown>[] {
  const table = readTable(bytes, { requireEnd: true });
  const names = table.schema.fields.map((f) => f.name);
  const rows: Record<string, unknown>[] = [];
  for (const row of table) {
    const plain: Record<string, unknown> = {};
    const json = row!.toJSON() as Record<string, unknown>;
    for (const name of names) plain[name] = toPlain(json[name]);
    rows.push(plain);
  }
  return rows;
}

function toPlain(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : String(value);
  }
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<unknown>, toPlain);
  if (Array.isArray(value)) return value.map(toPlain);
  if (typeof value === 'object') {
    // Vectors (lists) and StructRows (structs) both have toJSON: an array and an object.
    const v = value as { toJSON?: () => unknown };
    if (value instanceof Date) return value.toISOString();
    if (typeof v.toJSON === 'function') return toPlain(v.toJSON());
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value)) out[k] = toPlain(x);
    return out;
  }
  return value;
}
