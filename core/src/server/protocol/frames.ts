/**
 * Message frames of protocol v1: `[header, body?]` where the header is a msgpack map and the optional
 * body is Arrow IPC stream bytes. Parsing goes in the order the errors are documented: frame count,
 * msgpack, map, version, id, op, op fields; the first failure wins and names what was wrong.
 *
 * Error replies are valid msgpack whatever the request held: they echo a request's value only once it
 * decoded as the type expected (a short string op, a number version), and their `data` is reduced to
 * plain msgpack values (wireSafe) — msgpackr hands back the reserved byte 0xC1 as a marker object
 * that it would write back as 0xC1, and a huge BigInt cannot be written at all.
 */
import { Packr } from 'msgpackr';
import type { z } from 'zod';
import { GemError } from '../../core/errors.ts';
import { isPlainObject, onlyKeys } from '../../core/plainObject.ts';
import { REQUEST_SCHEMAS } from './headers.ts';
import { PROTOCOL_VERSION, REQUEST_OPS, type RequestOp } from './version.ts';

/**
 * Plain msgpack (no msgpackr record extension) so every client library reads it. `undefined` is not
 * msgpack: a property holding it is left out (as JSON does) and an array item becomes nil; msgpackr's
 * default, its own extension type 0, reached Python as an opaque ExtType.
 */
const packr = new Packr({
  useRecords: false,
  mapsAsObjects: true,
  int64AsType: 'number',
  variableMapSize: true,
  encodeUndefinedAsNil: true,
  // In msgpackr since 1.10 but missing from its Options type.
  ...{ skipValues: [undefined] },
});

export function packHeader(header: unknown): Buffer {
  return packr.pack(header);
}

export function unpackHeader(bytes: Uint8Array): unknown {
  return packr.unpack(bytes);
}

export type ParsedRequest = {
  [K in RequestOp]: { op: K; id: number; header: z.infer<(typeof REQUEST_SCHEMAS)[K]>; body?: Uint8Array };
}[RequestOp];

/** An error that still knows the request id (null when the header never got that far). */
export class RequestError extends GemError {
  constructor(
    readonly requestId: number | null,
    cause: GemError,
  ) {
    super(cause.code, cause.message, cause.data);
  }
}

/** A request value for an error message: numbers, booleans and short strings as they are; else its type. */
function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 64 ? `${v.slice(0, 64)}…` : v);
  return `a ${Array.isArray(v) ? 'list' : v instanceof Uint8Array ? 'binary' : typeof v === 'object' ? 'non-string value' : typeof v}`;
}

/** Strings from a request kept short in replies. */
function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) => {
      const path = i.path.map(String).join('.');
      if (i.code === 'unrecognized_keys') return `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.slice(0, 8).map((k) => `'${clip(k, 64)}'`).join(', ')}`;
      return path ? `'${path}': ${i.message}` : i.message;
    })
    .join('; ');
}

/** Decodes the frames after the routing id. Throws RequestError with a stable code on bad input. */
export function parseRequest(frames: readonly Uint8Array[]): ParsedRequest {
  if (frames.length < 1 || frames.length > 2) {
    throw new RequestError(null, new GemError('PROTOCOL_ERROR', `A message has 1 or 2 frames (header, body?); got ${frames.length}.`));
  }
  const [headerBytes, body] = frames;
  if (headerBytes.length === 0) throw new RequestError(null, new GemError('PROTOCOL_ERROR', 'The header frame is empty.'));
  let raw: unknown;
  try {
    raw = unpackHeader(headerBytes);
  } catch (e) {
    throw new RequestError(null, new GemError('PROTOCOL_ERROR', `The header frame is not msgpack: ${(e as Error).message}`));
  }
  if (!isPlainObject(raw)) {
    throw new RequestError(null, new GemError('PROTOCOL_ERROR', 'The header must be a msgpack map.'));
  }
  const id = Number.isSafeInteger(raw.id) && (raw.id as number) >= 0 ? (raw.id as number) : null;
  if (raw.v !== PROTOCOL_VERSION || versionIsFloat(headerBytes)) {
    const given = raw.v === PROTOCOL_VERSION ? `${PROTOCOL_VERSION}.0 (a float)` : describeValue(raw.v);
    throw new RequestError(
      id,
      new GemError('UNSUPPORTED_VERSION', `Protocol version ${given} is not supported; this server speaks v${PROTOCOL_VERSION} ('v' is the integer ${PROTOCOL_VERSION}).`, {
        supported: [PROTOCOL_VERSION],
      }),
    );
  }
  if (id === null) {
    throw new RequestError(null, new GemError('INVALID_REQUEST', "The header needs 'id', a non-negative integer."));
  }
  const entries = mapEntries(headerBytes);
  if (entries !== Object.keys(raw).length) {
    // Which copy a decoder keeps is its own choice; a request that says two things says neither.
    throw new RequestError(
      id,
      new GemError('INVALID_REQUEST', `The header map has ${entries} entries but ${Object.keys(raw).length} distinct field names: a field is given twice.`),
    );
  }
  const op = raw.op;
  if (typeof op !== 'string' || !(REQUEST_OPS as readonly string[]).includes(op)) {
    throw new RequestError(
      id,
      new GemError('UNKNOWN_OP', `Unknown op ${describeValue(op)}; known ops: ${REQUEST_OPS.join(', ')}.`, { op: typeof op === 'string' ? clip(op, 64) : null }),
    );
  }
  const fast = FAST_CHECKS[op as RequestOp];
  if (fast !== undefined && fast(raw)) {
    parseCounters.fast++;
    return { op, id, header: raw, body: body && body.length > 0 ? body : undefined } as ParsedRequest;
  }
  parseCounters.schema++;
  const schema = REQUEST_SCHEMAS[op as RequestOp] as z.ZodType;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new RequestError(id, new GemError('INVALID_REQUEST', clip(`Invalid '${op}' request: ${describeIssues(parsed.error.issues)}`, 2000), { op }));
  }
  return { op, id, header: parsed.data, body: body && body.length > 0 ? body : undefined } as ParsedRequest;
}

/** Requests read by a hand-written check, and by their zod schema (tests). */
export const parseCounters = { fast: 0, schema: 0 };

const isHandleId = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isEnvIndex = (v: unknown): boolean => typeof v === 'number' && (v | 0) === v && v >= 0;

function every(a: unknown[], ok: (v: unknown) => boolean): boolean {
  for (let k = 0; k < a.length; k++) if (!ok(a[k])) return false;
  return true;
}

const STEP_KEYS = new Set(['v', 'id', 'op', 'handle', 'rows', 'reply_format']);
const STEP_ROW_KEYS = new Set(['env_index', 'action']);
const BATCH_KEYS = new Set(['v', 'id', 'op', 'rows']);
const BATCH_ROW_KEYS = new Set(['handle', 'env_index', 'action', 'seed']);

/**
 * The headers of the hot ops (`step`, `batch`: every env-step) checked by hand in their common shape,
 * without the zod parse and the copies it makes: true only for headers their zod schema accepts as
 * they are (`v`, `id` and `op` are checked before). Anything else, a batch with reset options
 * included, goes through zod, which gives the error its message.
 */
const FAST_CHECKS: Partial<Record<RequestOp, (raw: Record<string, unknown>) => boolean>> = {
  step(raw) {
    if (!onlyKeys(raw, STEP_KEYS) || !isHandleId(raw.handle)) return false;
    const format = raw.reply_format;
    if (format !== undefined && format !== 'auto' && format !== 'arrow' && format !== 'inline') return false;
    const rows = raw.rows;
    if (rows === undefined) return true;
    if (!isPlainObject(rows) || !onlyKeys(rows, STEP_ROW_KEYS)) return false;
    const { env_index: index, action } = rows;
    return Array.isArray(index) && Array.isArray(action) && index.length === action.length && every(index, isEnvIndex) && every(action, (a) => typeof a === 'string');
  },
  batch(raw) {
    const rows = raw.rows;
    if (!onlyKeys(raw, BATCH_KEYS) || !isPlainObject(rows) || !onlyKeys(rows, BATCH_ROW_KEYS)) return false;
    const { handle, env_index: index, action, seed } = rows;
    if (!Array.isArray(handle) || !Array.isArray(index) || !Array.isArray(action)) return false;
    const n = handle.length;
    if (index.length !== n || action.length !== n) return false;
    if (seed !== undefined && !(Array.isArray(seed) && seed.length === n && every(seed, (x) => x === null || (typeof x === 'number' && Number.isSafeInteger(x))))) {
      return false;
    }
    return every(handle, isHandleId) && every(index, isEnvIndex) && every(action, (a) => a === null || typeof a === 'string');
  },
};

/** The entry count a msgpack map header declares (the header frame's first bytes). */
function mapEntries(bytes: Uint8Array): number {
  const b = bytes[0];
  if (b >= 0x80 && b <= 0x8f) return b & 0x0f;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b === 0xde && bytes.length >= 3) return view.getUint16(1);
  if (b === 0xdf && bytes.length >= 5) return view.getUint32(1);
  return -1;
}

/**
 * Whether the header's top-level `v` is written as a msgpack float (1.0 decodes to the number 1).
 * Walks the top-level entries up to `v`, which clients write first, so this is one look at most.
 */
function versionIsFloat(bytes: Uint8Array): boolean {
  const n = mapEntries(bytes);
  let pos = bytes[0] === 0xde ? 3 : bytes[0] === 0xdf ? 5 : 1;
  try {
    for (let i = 0; i < n; i++) {
      const isV = (bytes[pos] === 0xa1 && bytes[pos + 1] === 0x76) || (bytes[pos] === 0xd9 && bytes[pos + 1] === 1 && bytes[pos + 2] === 0x76);
      pos = skipValue(bytes, pos);
      if (isV) return bytes[pos] === 0xca || bytes[pos] === 0xcb;
      pos = skipValue(bytes, pos);
    }
  } catch {
    return false; // the decoder already read it; a walk that fails here decides nothing
  }
  return false;
}

/** The position after the msgpack value at `pos` (throws past the end). */
function skipValue(bytes: Uint8Array, pos: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const b = bytes[pos];
  if (b === undefined) throw new RangeError('past the end');
  if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc1 || b === 0xc2 || b === 0xc3) return pos + 1;
  if (b >= 0xa0 && b <= 0xbf) return pos + 1 + (b & 0x1f);
  const items = (count: number, from: number) => {
    let p = from;
    for (let i = 0; i < count; i++) p = skipValue(bytes, p);
    return p;
  };
  if (b >= 0x90 && b <= 0x9f) return items(b & 0x0f, pos + 1);
  if (b >= 0x80 && b <= 0x8f) return items(2 * (b & 0x0f), pos + 1);
  switch (b) {
    case 0xc4:
    case 0xd9:
      return pos + 2 + view.getUint8(pos + 1);
    case 0xc5:
    case 0xda:
      return pos + 3 + view.getUint16(pos + 1);
    case 0xc6:
    case 0xdb:
      return pos + 5 + view.getUint32(pos + 1);
    case 0xc7:
      return pos + 3 + view.getUint8(pos + 1);
    case 0xc8:
      return pos + 4 + view.getUint16(pos + 1);
    case 0xc9:
      return pos + 6 + view.getUint32(pos + 1);
    case 0xca:
      return pos + 5;
    case 0xcb:
      return pos + 9;
    case 0xcc:
    case 0xd0:
      return pos + 2;
    case 0xcd:
    case 0xd1:
      return pos + 3;
    case 0xce:
    case 0xd2:
      return pos + 5;
    case 0xcf:
    case 0xd3:
      return pos + 9;
    case 0xd4:
      return pos + 3;
    case 0xd5:
      return pos + 4;
    case 0xd6:
      return pos + 6;
    case 0xd7:
      return pos + 10;
    case 0xd8:
      return pos + 18;
    case 0xdc:
      return items(view.getUint16(pos + 1), pos + 3);
    case 0xdd:
      return items(view.getUint32(pos + 1), pos + 5);
    case 0xde:
      return items(2 * view.getUint16(pos + 1), pos + 3);
    default: // 0xdf
      return items(2 * view.getUint32(pos + 1), pos + 5);
  }
}

export function okReply(id: number, fields: Record<string, unknown>): Buffer {
  return packHeader({ v: PROTOCOL_VERSION, id, ok: true, ...fields });
}

/**
 * `value` as plain msgpack values: null, booleans, numbers, strings, binary, lists and string-keyed
 * maps, bounded in depth and size; BigInts become numbers or decimal text, anything else null.
 */
export function wireSafe(value: unknown, depth = 0): unknown {
  switch (typeof value) {
    case 'string':
      return value.length > 4096 ? `${value.slice(0, 4096)}…` : value;
    case 'number':
    case 'boolean':
      return value;
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
    case 'object':
      break;
    default:
      return null;
  }
  if (value === null || depth > 6) return null;
  if (value instanceof Uint8Array) return value.length > 4096 ? null : value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.slice(0, 256).map((v) => wireSafe(v, depth + 1));
  if (!isPlainObject(value)) return null;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value).slice(0, 256)) if (v !== undefined) out[k] = wireSafe(v, depth + 1);
  return out;
}

export function errorReply(id: number | null, err: { code: string; message: string; data?: unknown }): Buffer {
  const safeId = Number.isSafeInteger(id) && (id as number) >= 0 ? id : null;
  const error: Record<string, unknown> = { code: String(err.code), message: wireSafe(String(err.message)) };
  if (err.data !== undefined) error.data = wireSafe(err.data);
  try {
    return packHeader({ v: PROTOCOL_VERSION, id: safeId, ok: false, error });
  } catch {
    // Unreachable for wire-safe values; an error reply must never fail to be sent.
    return packHeader({ v: PROTOCOL_VERSION, id: safeId, ok: false, error: { code: String(err.code), message: 'The error could not be encoded.' } });
  }
}

/**
 * The `id` of a header too large to decode, read from its first few map entries without decoding the
 * rest (clients write `v` and `id` first). Only short keys and integer or string values are
 * understood; anything else ends the search. O(1): it never walks past the fourth entry.
 */
export function peekRequestId(h: Uint8Array): number | null {
  let p = 0;
  const byte = () => (p < h.length ? h[p++] : -1);
  const uint = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const b = byte();
      if (b < 0) return -1;
      v = v * 256 + b;
    }
    return v;
  };
  const m = byte();
  let entries: number;
  if (m >= 0x80 && m <= 0x8f) entries = m & 0x0f;
  else if (m === 0xde) entries = uint(2);
  else if (m === 0xdf) entries = uint(4);
  else return null;
  for (let e = 0; e < Math.min(entries, 4); e++) {
    const k = byte();
    if (k < 0xa0 || k > 0xbf) return null; // keys are short strings
    const len = k & 0x1f;
    const key = Buffer.from(h.subarray(p, p + len)).toString('latin1');
    p += len;
    const t = byte();
    let value: number;
    const strLen = t >= 0xa0 && t <= 0xbf ? t & 0x1f : t === 0xd9 ? uint(1) : t === 0xda ? uint(2) : t === 0xdb ? uint(4) : -1;
    if (strLen >= 0) {
      p += strLen; // a string value (e.g. op): skip it
      continue;
    }
    if (t >= 0 && t <= 0x7f) value = t;
    else if (t === 0xcc) value = uint(1);
    else if (t === 0xcd) value = uint(2);
    else if (t === 0xce) value = uint(4);
    else if (t === 0xcf) value = uint(8);
    else return null;
    if (key === 'id') return value >= 0 && Number.isSafeInteger(value) ? value : null;
  }
  return null;
}
