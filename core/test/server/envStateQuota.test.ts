/**
 * Env state a client grows counts in its byte quota (issue 27, build 2): a history wrapper (`concat`
 * and its kin) keeps every action and observation of an episode, so a hostile client stepping an env
 * that never ends, with big actions, would grow the server without bound. The kept text counts in
 * max_dataset_bytes_per_client / _total beside pushed tables, inline rows and files; a step past the
 * quota is refused with LIMIT_EXCEEDED {limit, value, max, index, handle} before anything runs; the
 * env stays usable, and a reset or close frees its history.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import { encodeStepRequest } from '../../src/server/protocol/arrowCodec.ts';
import type { GemServer } from '../../src/server/server.ts';
import { EchoEnv } from '../wrappers/echoEnv.ts';
import { startServer, TestScope, type WireClient } from './wireClient.ts';

const KiB = 1024;
const MAX = 64 * KiB;
const BIG = 'a'.repeat(10 * KiB);

const scope = new TestScope();
let server: GemServer;
afterEach(() => scope.close());

async function serve(limits: Record<string, number> = {}): Promise<void> {
  const catalog = defaultRegistry.overlay({ label: 'test catalog' });
  catalog.register({ id: 'test:Echo-v0', description: 'Echoes the action, never ends.', schema: z.object({}).strict(), create: () => new EchoEnv() });
  server = await scope.serve(startServer({ catalog, limits: { memory_headroom_bytes: 0, max_dataset_bytes_per_client: MAX, ...limits } }));
}

async function makeEcho(c: WireClient, wrappers = 'concat', numEnvs = 1): Promise<number> {
  const h = (await c.ok({ op: 'make', env_ids: 'test:Echo-v0', num_envs: numEnvs, wrappers })).header.handle as number;
  await c.ok({ op: 'reset', handle: h });
  return h;
}

const step = (c: WireClient, handle: number, action = BIG, index = 0) => c.request({ op: 'step', handle, rows: { env_index: [index], action: [action] } });
const usage = async (c: WireClient) => (await c.ok({ op: 'stats' })).header.client as Record<string, number>;

/** Steps until the quota refuses; the number of steps that ran and the refusal. */
async function stepUntilRefused(c: WireClient, handle: number): Promise<{ steps: number; error: Record<string, any> }> {
  for (let steps = 0; steps < 100; steps++) {
    const r = await step(c, handle);
    if (r.header.error) return { steps, error: r.header.error };
  }
  throw new Error('100 steps of 10 KiB never passed a 64 KiB quota');
}

describe('env state in the quotas', () => {
  it('a concat history counts for its session; a step past the quota is refused, naming the env; others go on; reset frees it', async () => {
    await serve();
    const a = scope.client();
    const b = scope.client();
    const h = await makeEcho(a);
    const plain = await makeEcho(a, '');
    const hb = await makeEcho(b);
    expect(await usage(a)).toMatchObject({ env_state_bytes: 'start'.length, dataset_bytes: 'start'.length });

    await a.ok({ op: 'step', handle: h, rows: { env_index: [0], action: [BIG] } });
    const kept = 'start'.length + `heard ${BIG}`.length;
    expect(await usage(a)).toMatchObject({ env_state_bytes: kept, dataset_bytes: kept });

    const { steps, error } = await stepUntilRefused(a, h);
    expect(steps).toBeGreaterThanOrEqual(4);
    expect(error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_per_client', max: MAX, index: 0, handle: h } });
    expect(error.data.value).toBeGreaterThan(MAX);
    expect(error.message).toContain('env 0 of handle');
    const held = (await usage(a)).env_state_bytes;
    expect(held).toBeGreaterThan(MAX - BIG.length - 100);
    expect(held).toBeLessThanOrEqual(MAX);
    // Refused means nothing ran: the count is unchanged, and the env was not stepped.
    expect((await step(a, h)).header.error).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect((await usage(a)).env_state_bytes).toBe(held);

    // The same session's env without a history, and the other session, step on.
    await a.ok({ op: 'step', handle: plain, rows: { env_index: [0], action: [BIG] } });
    await b.ok({ op: 'step', handle: hb, rows: { env_index: [0], action: [BIG] } });
    expect((await usage(b)).env_state_bytes).toBe(kept);
    expect(server.stats()).toMatchObject({ env_state_bytes: held + kept });

    // A reset frees the history and the env steps again.
    await a.ok({ op: 'reset', handle: h });
    expect((await usage(a)).env_state_bytes).toBe('start'.length);
    await a.ok({ op: 'step', handle: h, rows: { env_index: [0], action: [BIG] } });
    expect((await usage(a)).env_state_bytes).toBe(kept);

    // Closing the handle, or the session, frees it too.
    await a.ok({ op: 'close', handle: h });
    expect((await usage(a)).env_state_bytes).toBe(0);
    await b.ok({ op: 'close' });
    expect(server.stats()).toMatchObject({ env_state_bytes: 0 });
  });

  it('counts with the data the session holds, and in the server total', async () => {
    await serve({ max_dataset_bytes_per_client: 1024 * KiB, max_dataset_bytes_total: 48 * KiB });
    const a = scope.client();
    const b = scope.client();
    const ha = await makeEcho(a, 'concat_with_action');
    const hb = await makeEcho(b, 'concat_with_action');
    // Each step keeps the action and the echo: about 20 KiB. Two fit in the 48 KiB server total.
    await a.ok({ op: 'step', handle: ha, rows: { env_index: [0], action: [BIG] } });
    await b.ok({ op: 'step', handle: hb, rows: { env_index: [0], action: [BIG] } });
    const r = await step(b, hb);
    expect(r.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_total', max: 48 * KiB, handle: hb } });
    await a.ok({ op: 'close' });
    await b.ok({ op: 'step', handle: hb, rows: { env_index: [0], action: [BIG] } });
  });

  it('pipelined steps are admitted against each other: together they cannot pass the quota', async () => {
    await serve();
    const a = scope.client();
    const h = await makeEcho(a, 'concat', 4);
    const replies = await Promise.all(Array.from({ length: 12 }, (_, k) => step(a, h, BIG, k % 4)));
    const refused = replies.filter((r) => r.header.error);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_per_client' } });
    expect((await usage(a)).env_state_bytes).toBeLessThanOrEqual(MAX);
  });

  it('in a batch, a refused row gets its own LIMIT_EXCEEDED and the other rows still step', async () => {
    await serve();
    const a = scope.client();
    const h = await makeEcho(a);
    const plain = await makeEcho(a, '');
    await stepUntilRefused(a, h);
    const r = await a.request({ op: 'batch', rows: { handle: [h, plain], env_index: [0, 0], action: [BIG, 'hi'] } });
    expect(r.header.errors).toEqual([
      expect.objectContaining({ row: 0, code: 'LIMIT_EXCEEDED', data: expect.objectContaining({ limit: 'max_dataset_bytes_per_client', max: MAX, handle: h, index: 0 }) }),
    ]);
    expect(r.header.rows.observation[1]).toBe('heard hi');
  });

  it('a step whose Arrow body is decoded in slices (over 64 KiB) is admitted the same way', async () => {
    await serve({ max_dataset_bytes_per_client: 128 * KiB });
    const a = scope.client();
    const h = await makeEcho(a);
    const huge = encodeStepRequest({ indices: [0], actions: ['b'.repeat(70 * KiB)] });
    await a.ok({ op: 'step', handle: h }, huge);
    expect((await usage(a)).env_state_bytes).toBeGreaterThan(70 * KiB);
    const r = await a.request({ op: 'step', handle: h }, huge);
    expect(r.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_per_client', max: 128 * KiB, index: 0, handle: h } });
    await a.ok({ op: 'reset', handle: h });
    await a.ok({ op: 'step', handle: h }, huge);
  });
});
