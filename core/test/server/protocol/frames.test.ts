import { describe, expect, it } from 'vitest';
import { errorReply, okReply, packHeader, parseCounters, parseRequest, unpackHeader } from '../../../src/server/protocol/frames.ts';
import { REQUEST_SCHEMAS } from '../../../src/server/protocol/headers.ts';

const code = (c: string) => expect.objectContaining({ code: c });

describe('parseRequest', () => {
  it('accepts a valid request and keeps its body', () => {
    const body = Buffer.from([1, 2, 3]);
    const req = parseRequest([packHeader({ v: 1, id: 7, op: 'step', handle: 2 }), body]);
    expect(req).toMatchObject({ op: 'step', id: 7, header: { handle: 2 } });
    expect(req.body).toEqual(body);
  });

  it('refuses zero or three frames', () => {
    expect(() => parseRequest([])).toThrowError(code('PROTOCOL_ERROR'));
    const h = packHeader({ v: 1, id: 1, op: 'ping' });
    expect(() => parseRequest([h, h, h])).toThrowError(/1 or 2 frames/);
  });

  it('refuses an empty header and a header that is not a msgpack map', () => {
    expect(() => parseRequest([Buffer.alloc(0)])).toThrowError(code('PROTOCOL_ERROR'));
    expect(() => parseRequest([packHeader([1, 2, 3])])).toThrowError(/msgpack map/);
    expect(() => parseRequest([packHeader('hello')])).toThrowError(code('PROTOCOL_ERROR'));
    expect(() => parseRequest([Buffer.from([0xc1])])).toThrowError(code('PROTOCOL_ERROR'));
    expect(() => parseRequest([Buffer.from([0xc1, 0x00])])).toThrowError(/not msgpack/);
  });

  it('checks the version before anything else and keeps the id for the reply', () => {
    try {
      parseRequest([packHeader({ v: 3, id: 9, op: 'nonsense' })]);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'UNSUPPORTED_VERSION', requestId: 9, data: { supported: [1] } });
    }
    expect(() => parseRequest([packHeader({ id: 9, op: 'ping' })])).toThrowError(code('UNSUPPORTED_VERSION'));
  });

  it('needs a non-negative integer id', () => {
    for (const id of [undefined, -1, 1.5, 'x']) {
      expect(() => parseRequest([packHeader({ v: 1, id, op: 'ping' })])).toThrowError(code('INVALID_REQUEST'));
    }
  });

  it('names an unknown op and lists the known ones', () => {
    expect(() => parseRequest([packHeader({ v: 1, id: 1, op: 'fly' })])).toThrowError(/Unknown op "fly"; known ops: hello, ping/);
  });

  it('names misspelt and ill-typed fields', () => {
    expect(() => parseRequest([packHeader({ v: 1, id: 1, op: 'make', env_id: 'x' })])).toThrowError(/unknown field 'env_id'/);
    expect(() => parseRequest([packHeader({ v: 1, id: 1, op: 'reset', handle: 'one' })])).toThrowError(/'handle'/);
    expect(() =>
      parseRequest([packHeader({ v: 1, id: 1, op: 'step', handle: 1, rows: { env_index: [0, 1], action: ['a'] } })]),
    ).toThrowError(/same length/);
    expect(() => parseRequest([packHeader({ v: 1, id: 1, op: 'spec' })])).toThrowError(/exactly one of env_id and handle/);
  });
});

describe('step and batch headers (read by a hand-written check, zod for everything else)', () => {
  const step = { v: 1, id: 3, op: 'step', handle: 2 };
  const rows = { handle: [1, 2], env_index: [0, 0], action: ['a', null] };
  const batch = { v: 1, id: 4, op: 'batch', rows };

  it('reads the common shapes without zod, to what zod reads', () => {
    for (const h of [
      step,
      { ...step, rows: { env_index: [0, 2 ** 31 - 1], action: ['a', ''] }, reply_format: 'arrow' },
      { ...step, rows: { env_index: [], action: [] }, reply_format: 'inline' },
      batch,
      { ...batch, rows: { ...rows, seed: [null, -3] } },
    ]) {
      const before = { ...parseCounters };
      const req = parseRequest([packHeader(h)]);
      expect(parseCounters.fast - before.fast, JSON.stringify(h)).toBe(1);
      expect(parseCounters.schema - before.schema).toBe(0);
      expect(req.header).toEqual(REQUEST_SCHEMAS[h.op as 'step' | 'batch'].parse(h));
    }
  });

  it('hands anything else to zod: the same verdict and message as zod alone', () => {
    const cases: Record<string, unknown>[] = [
      { ...step, handle: -1 },
      { ...step, handle: 1.5 },
      { ...step, handle: '2' },
      { ...step, rows: { env_index: [0], action: [1] } },
      { ...step, rows: { env_index: [2 ** 31], action: ['a'] } },
      { ...step, rows: { env_index: [0, 1], action: ['a'] } },
      { ...step, rows: { env_index: [0], action: ['a'], extra: 1 } },
      { ...step, rows: null },
      { ...step, reply_format: 'msgpack' },
      { ...step, typo: 1 },
      { ...batch, rows: { ...rows, seed: [1.5, null] } },
      { ...batch, rows: { ...rows, seed: [1] } },
      { ...batch, rows: { ...rows, env_index: [0] } },
      { ...batch, rows: { ...rows, handle: [1, 'x'] } },
      { ...batch, rows: { ...rows, action: [null, 7] } },
      { ...batch, rows: { ...rows, options: [{ idx: 1 }, null] } }, // valid: options always go to zod
      { ...batch, rows: [] },
      { ...batch, extra: true },
    ];
    for (const h of cases) {
      const before = { ...parseCounters };
      const zod = REQUEST_SCHEMAS[h.op as 'step' | 'batch'].safeParse(h);
      let message: string | undefined;
      try {
        parseRequest([packHeader(h)]);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(parseCounters.schema - before.schema, JSON.stringify(h)).toBe(1);
      expect(message === undefined, JSON.stringify(h)).toBe(zod.success);
      if (message !== undefined) expect(message).toMatch(/^Invalid '(step|batch)' request: /);
    }
  });
});

describe('replies', () => {
  it('carry v, id and ok; errors carry code, message and data', () => {
    expect(unpackHeader(okReply(4, { n: 0 }))).toEqual({ v: 1, id: 4, ok: true, n: 0 });
    expect(unpackHeader(errorReply(null, { code: 'UNKNOWN_OP', message: 'm', data: { op: 'x' } }))).toEqual({
      v: 1,
      id: null,
      ok: false,
      error: { code: 'UNKNOWN_OP', message: 'm', data: { op: 'x' } },
    });
  });
});

describe('packHeader', () => {
  it('writes no msgpackr extension for undefined: the property is left out, an array item is nil', () => {
    const bytes = packHeader({ a: 1, gone: undefined, list: [1, undefined] });
    expect(bytes.includes(0xd4)).toBe(false); // fixext 1, msgpackr's encoding of undefined
    expect(unpackHeader(bytes)).toEqual({ a: 1, list: [1, null] });
  });
});

describe('peekRequestId', () => {
  it('finds the id in the first entries of a header too large to decode', async () => {
    const { peekRequestId } = await import('../../../src/server/protocol/frames.ts');
    expect(peekRequestId(packHeader({ v: 1, id: 77, op: 'step', rows: { action: ['x'.repeat(100_000)] } }))).toBe(77);
    expect(peekRequestId(packHeader({ v: 1, id: 70_000, op: 'x' }))).toBe(70_000);
    expect(peekRequestId(packHeader({ op: 'x', v: 1, id: 5 }))).toBe(5);
    expect(peekRequestId(packHeader({ op: 'x', blob: 'y', z: 1, w: 2, id: 5 }))).toBeNull(); // beyond the 4th entry
    expect(peekRequestId(packHeader({ rows: [1], id: 5 }))).toBeNull(); // an array value ends the search
    expect(peekRequestId(packHeader([1, 2]))).toBeNull();
    expect(peekRequestId(Buffer.from([0x82, 0xa2]))).toBeNull(); // truncated
  });
});
