/**
 * The shared wire fixtures (core/test/fixtures/wire/v1), read by this suite and by the pytest suite
 * (core/python/tests/test_fixtures.py). Every fixture's frames must decode to what its JSON says;
 * TypeScript-written ones must still be produced byte for byte by today's encoders.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { decodeRows, decodeStepRequest, tableToRows } from '../../src/server/protocol/arrowCodec.ts';
import { parseRequest, unpackHeader } from '../../src/server/protocol/frames.ts';
import * as H from '../../src/server/protocol/headers.ts';
import { FIXTURE_DIR, rawBadFixtures, typescriptFixtures, type FixtureSpec } from '../fixtures/wire/generate.ts';

type Fixture = FixtureSpec & { frames: string[] };

const fixtures: Fixture[] = readdirSync(FIXTURE_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(FIXTURE_DIR, f), 'utf8')) as Fixture);

const frames = (fx: Fixture) => fx.frames.map((f) => readFileSync(join(FIXTURE_DIR, f)));

/** Reply schemas by fixture name (replies carry no op; the request they answer decides). */
const REPLY_SCHEMAS: Record<string, z.ZodType> = {
  hello_reply: H.HelloReplySchema,
  make_reply: H.MakeReplySchema,
  reset_reply_inline: H.RowsReplySchema,
  step_reply_arrow: H.RowsReplySchema,
  error_reply: H.ErrorReplySchema,
  env_call: H.EnvCallSchema,
};

function columnsOfRows(bytes: Uint8Array): Record<string, unknown[]> {
  const r = decodeRows(bytes);
  return {
    env_index: Array.from(r.indices),
    observation: r.observations,
    reward: Array.from(r.rewards),
    terminated: Array.from(r.terminated),
    truncated: Array.from(r.truncated),
    info: r.infos,
  };
}

function columnsOfTable(bytes: Uint8Array): Record<string, unknown[]> {
  const rows = tableToRows(bytes);
  const cols: Record<string, unknown[]> = {};
  for (const key of Object.keys(rows[0])) cols[key] = rows.map((r) => r[key]);
  return cols;
}

describe('wire fixtures v1', () => {
  it('has fixtures from both writers', () => {
    expect(fixtures.filter((f) => f.writer === 'typescript').length).toBeGreaterThanOrEqual(10);
    expect(fixtures.filter((f) => f.writer === 'python').length).toBeGreaterThanOrEqual(3);
    for (const fx of fixtures) for (const f of fx.frames) expect(existsSync(join(FIXTURE_DIR, f)), f).toBe(true);
  });

  for (const fx of fixtures) {
    describe(`${fx.name} (${fx.writer})`, () => {
      const [header, body] = frames(fx);

      if (fx.name === 'bad_not_msgpack') {
        it('is refused with PROTOCOL_ERROR', () => {
          expect(() => unpackHeader(header)).toThrow();
          expect(() => parseRequest([header])).toThrowError(expect.objectContaining({ code: 'PROTOCOL_ERROR' }));
        });
        return;
      }

      it('header decodes to the JSON', () => {
        expect(unpackHeader(header)).toEqual(fx.header);
      });

      if (fx.direction === 'client_to_server') {
        it(fx.expect_error ? `is refused with ${fx.expect_error}` : 'parses as a valid request', () => {
          const parse = () => {
            const req = parseRequest(body ? [header, body] : [header]);
            if (req.op === 'step' && req.body) decodeStepRequest(req.body);
            return req;
          };
          if (fx.expect_error) expect(parse).toThrowError(expect.objectContaining({ code: fx.expect_error }));
          else expect(parse().op).toBe(fx.header.op);
        });
      } else {
        it('matches its reply schema', () => {
          const schema = REPLY_SCHEMAS[fx.name];
          expect(schema, `no schema listed for ${fx.name}`).toBeDefined();
          expect(schema.safeParse(fx.header).success).toBe(true);
        });
      }

      if (fx.body && !fx.expect_error) {
        it(`body decodes to the JSON columns (${fx.body.schema})`, () => {
          const decode = { step_request: (b: Uint8Array) => {
            const r = decodeStepRequest(b);
            return { env_index: Array.from(r.indices), action: r.actions };
          }, rows: columnsOfRows, table: columnsOfTable }[fx.body!.schema];
          expect(decode(body)).toEqual(fx.body!.columns);
        });
      }
    });
  }

  it('today’s TypeScript encoders produce the committed bytes', () => {
    for (const { spec, frames: fresh } of [...typescriptFixtures(), ...rawBadFixtures()]) {
      const fx = fixtures.find((f) => f.name === spec.name);
      expect(fx, `fixture ${spec.name} missing: run npx tsx test/fixtures/wire/generate.ts`).toBeDefined();
      const committed = frames(fx!);
      expect(committed.length).toBe(fresh.length);
      fresh.forEach((f, i) => expect(Buffer.compare(Buffer.from(f), committed[i]), `${spec.name} frame ${i}`).toBe(0));
    }
  });
});
