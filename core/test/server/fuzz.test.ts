/**
 * Thousands of random and mutated messages (seeded, so a failure replays), then proof that the
 * server still works: it answered every message that deserves an answer with a well-formed reply,
 * and a fresh client can still make, reset and step envs with correct results.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { encodeStepRequest } from '../../src/server/protocol/arrowCodec.ts';
import { packHeader, parseRequest, unpackHeader } from '../../src/server/protocol/frames.ts';
import { REQUEST_OPS } from '../../src/server/protocol/version.ts';
import type { GemServer } from '../../src/server/server.ts';
import { FIXTURE_DIR } from '../fixtures/wire/generate.ts';
import { isStrictMsgpack } from './strictMsgpack.ts';
import { connect, startServer } from './wireClient.ts';

const MESSAGES = 3000;
const ID = 'game:GuessTheNumber-v0-easy';

let server: GemServer;
beforeAll(async () => {
  server = await startServer({ limits: { max_envs_per_handle: 8, max_handles_per_client: 8, max_message_bytes: 256 * 1024 } });
});
afterAll(async () => {
  await server.close();
});

/** Valid frames to start mutating from: every client→server fixture plus a few live-handle requests. */
function seeds(): Buffer[][] {
  const out: Buffer[][] = [];
  for (const f of readdirSync(FIXTURE_DIR).filter((n) => n.endsWith('.json'))) {
    const fx = JSON.parse(readFileSync(join(FIXTURE_DIR, f), 'utf8')) as { direction: string; frames: string[] };
    if (fx.direction === 'client_to_server') out.push(fx.frames.map((n) => readFileSync(join(FIXTURE_DIR, n))));
  }
  const body = Buffer.from(encodeStepRequest({ indices: [0, 1], actions: ['\\boxed{1}', '\\boxed{2}'] }));
  out.push([packHeader({ v: 1, id: 1, op: 'make', env_ids: ID, num_envs: 2 })]);
  out.push([packHeader({ v: 1, id: 2, op: 'reset', handle: 1, seed: 3 })]);
  out.push([packHeader({ v: 1, id: 3, op: 'step', handle: 1 }), body]);
  out.push([packHeader({ v: 1, id: 4, op: 'step', handle: 1, rows: { env_index: [0], action: ['x'] } })]);
  return out;
}

function randomValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(0, depth > 2 ? 5 : 8)) {
    case 0:
      return null;
    case 1:
      return rng.int(-5, 2 ** 31);
    case 2:
      return rng.random() * 1e6 - 5e5;
    case 3:
      return rng.random() < 0.5;
    case 4:
      return ['', 'step', ID, '\\boxed{3}', 'x'.repeat(rng.int(0, 300)), '💥'][rng.int(0, 5)];
    case 5:
      return Buffer.from(Array.from({ length: rng.int(0, 20) }, () => rng.int(0, 255)));
    case 6:
      return Array.from({ length: rng.int(0, 4) }, () => randomValue(rng, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = rng.int(0, 4); i > 0; i--) o[['v', 'id', 'op', 'handle', 'rows', 'env_ids', 'seed', 'x'][rng.int(0, 7)]] = randomValue(rng, depth + 1);
      return o;
    }
  }
}

/**
 * A header whose `op` (or another field) holds a value msgpackr decodes to something that is not
 * plain data: the reserved byte 0xC1, a timestamp or other extension, a long binary — built by hand,
 * since no encoder writes them.
 */
function oddHeader(rng: Rng): Buffer {
  const key = (k: string) => Buffer.concat([Buffer.from([0xa0 | k.length]), Buffer.from(k)]);
  const odd = [
    Buffer.from([0xc1]),
    Buffer.from([0xd6, 0xff, 0, 0, 0, 1]), // timestamp extension
    Buffer.from([0xd4, 0x05, 0x00]), // unknown fixext
    Buffer.from([0xc4, 3, 1, 2, 3]), // binary
    Buffer.from([0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0]), // NaN
    Buffer.from([0xa2, 0xed, 0xa0]), // a string that is not UTF-8
  ][rng.int(0, 5)];
  const field = ['op', 'v', 'handle', 'name', 'env_ids', 'token'][rng.int(0, 5)];
  const entries: Buffer[] = [];
  const fields: [string, Buffer][] = [
    ['v', Buffer.from([0x01])],
    ['id', Buffer.from([0xcd, 0x01, 0x00])],
    ['op', Buffer.from([0xa4, ...Buffer.from('step')])],
  ];
  if (!fields.some(([k]) => k === field)) fields.push([field, odd]);
  for (const [k, v] of fields) entries.push(key(k), k === field ? odd : v);
  return Buffer.concat([Buffer.from([0x80 | fields.length]), ...entries]);
}

function mutate(rng: Rng, frames: Buffer[]): Buffer[] {
  const copy = frames.map((f) => Buffer.from(f));
  switch (rng.int(0, 8)) {
    case 0: {
      // flip bytes
      const f = copy[rng.int(0, copy.length - 1)];
      for (let i = rng.int(1, 6); i > 0 && f.length; i--) f[rng.int(0, f.length - 1)] ^= 1 << rng.int(0, 7);
      return copy;
    }
    case 1: {
      // truncate a frame
      const k = rng.int(0, copy.length - 1);
      copy[k] = copy[k].subarray(0, rng.int(0, copy[k].length));
      return copy;
    }
    case 2:
      // random frames, 0..3 of them
      return Array.from({ length: rng.int(0, 3) }, () => Buffer.from(Array.from({ length: rng.int(0, 64) }, () => rng.int(0, 255))));
    case 3: {
      // a well-formed header with random fields
      const header = { v: rng.random() < 0.9 ? 1 : randomValue(rng), id: rng.int(0, 1e6), op: REQUEST_OPS[rng.int(0, REQUEST_OPS.length - 1)] } as Record<string, unknown>;
      for (let i = rng.int(0, 4); i > 0; i--) header[['handle', 'rows', 'env_ids', 'seed', 'indices', 'options', 'name', 'filter', 'num_envs'][rng.int(0, 8)]] = randomValue(rng);
      return rng.random() < 0.3 ? [packHeader(header), copy[copy.length - 1]] : [packHeader(header)];
    }
    case 4:
      // a random msgpack value as the header
      return [packHeader(randomValue(rng))];
    case 5:
      // swap bodies between seeds / add a junk body
      return [copy[0], Buffer.from(Array.from({ length: rng.int(1, 200) }, () => rng.int(0, 255)))];
    case 6:
      // an empty message part
      return [Buffer.alloc(0), ...copy.slice(1)];
    case 7:
      return [oddHeader(rng)];
    default:
      // a valid seed as is
      return copy;
  }
}

/** Whether the server owes this message a reply: all do, except a well-formed env_return. */
function expectsReply(frames: Buffer[]): boolean {
  if (frames.length === 0) return true;
  try {
    return parseRequest(frames).op !== 'env_return';
  } catch {
    return true;
  }
}

describe('fuzz', () => {
  it(`survives ${MESSAGES} random and mutated messages and still answers correctly`, { timeout: 120_000 }, async () => {
    const rng = new Rng(20260521);
    const pool = seeds();
    const fuzzer = connect(server);
    let expected = 0;
    for (let i = 0; i < MESSAGES; i++) {
      const frames = mutate(rng, pool[rng.int(0, pool.length - 1)]);
      // zeromq cannot send a message of zero parts; send one empty part instead.
      const out = frames.length ? frames : [Buffer.alloc(0)];
      if (expectsReply(out)) expected++;
      await fuzzer.send(out);
    }
    // Every reply is a well-formed v1 header; the count matches once the server caught up.
    const deadline = Date.now() + 60_000;
    while (fuzzer.stray.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(fuzzer.undecodable).toEqual([]);
    expect(fuzzer.stray.length).toBe(expected);
    // Every reply is valid msgpack for a strict reader too (no 0xC1 echoed back, UTF-8 strings).
    expect(fuzzer.stray.filter((r) => !isStrictMsgpack(r.raw!)).map((r) => r.raw!.toString('hex'))).toEqual([]);
    for (const { header } of fuzzer.stray) {
      expect(header.v).toBe(1);
      if (!header.ok) expect(header.error.code).toMatch(/^[A-Z_]+$/);
    }
    const codes = new Set(fuzzer.stray.filter((r) => !r.header.ok).map((r) => r.header.error.code));
    expect([...codes]).toEqual(expect.arrayContaining(['PROTOCOL_ERROR', 'INVALID_REQUEST', 'UNKNOWN_OP', 'UNSUPPORTED_VERSION', 'INVALID_BODY']));
    fuzzer.close();

    // A fresh client gets correct, deterministic results.
    const c = connect(server);
    expect((await c.ok({ op: 'hello' })).header.protocol).toBe(1);
    const h = (await c.ok({ op: 'make', env_ids: ID, num_envs: 2 })).header.handle;
    const a = await c.ok({ op: 'reset', handle: h, seed: 9 });
    const b = await c.ok({ op: 'reset', handle: h, seed: 9 });
    expect(a.header.rows).toEqual(b.header.rows);
    const s = await c.ok({ op: 'step', handle: h, rows: { env_index: [0, 1], action: ['\\boxed{1}', 'bad'] } });
    expect(s.header.rows.reward[1]).toBeCloseTo(-0.1);
    expect(s.header.rows.terminated).toEqual([expect.any(Boolean), true]);
    expect(unpackHeader(packHeader({ ok: 1 }))).toEqual({ ok: 1 });
    c.close();
  });
});
