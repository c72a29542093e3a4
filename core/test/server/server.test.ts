import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getRegisteredDataset } from '../../src/data/datasetRegistry.ts';
import { decodeRows, encodeStepRequest } from '../../src/server/protocol/arrowCodec.ts';
import { packHeader } from '../../src/server/protocol/frames.ts';
import { Table, Utf8, Int64, tableToIPC, vectorFromArray } from 'apache-arrow';
import type { GemServer } from '../../src/server/server.ts';
import { connect, startServer, type WireClient } from './wireClient.ts';

const ID = 'game:GuessTheNumber-v0-easy';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: GemServer;
const clients: WireClient[] = [];
function client(routingId?: string): WireClient {
  const c = connect(server, routingId);
  clients.push(c);
  return c;
}

beforeEach(async () => {
  server = await startServer({
    limits: { max_envs_per_handle: 50, max_handles_per_client: 3, max_message_bytes: 64 * 1024, idle_timeout_ms: 400, inline_max_rows: 4 },
  });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.close();
});

async function makeHandle(c: WireClient, fields: Record<string, unknown> = {}): Promise<number> {
  const r = await c.ok({ op: 'make', env_ids: ID, num_envs: 3, ...fields });
  return r.header.handle as number;
}

describe('gem-ts server: ops', () => {
  it('hello announces the protocol and the configured limits', async () => {
    const { header } = await client().ok({ op: 'hello', client: { name: 'test' } });
    expect(header.protocol).toBe(1);
    expect(header.server).toMatchObject({ name: 'gem-ts' });
    expect(header.limits).toMatchObject({ max_envs_per_handle: 50, max_handles_per_client: 3, max_message_bytes: 65536, inline_max_rows: 4 });
  });

  it('make → reset → step, inline for few rows and Arrow for many', async () => {
    const c = client();
    const made = await c.ok({ op: 'make', env_ids: ID, num_envs: 6, wrappers: 'concat,episode_tracking', seed: 1 });
    expect(made.header).toMatchObject({ num_envs: 6, autoreset_mode: 'same_step', wrappers: ['concat', 'episode_tracking'] });
    expect(made.header.repr[0]).toBe(`<episode_tracking<concat<${ID}>>>`);
    const h = made.header.handle;

    const reset = await c.ok({ op: 'reset', handle: h, seed: 5 });
    expect(reset.body).toBeDefined(); // 6 rows > inline_max_rows (4)
    const rows = decodeRows(reset.body!);
    expect(Array.from(rows.indices)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rows.infos[0]).toMatchObject({ step_counter: 0 });

    const inline = await c.ok({ op: 'step', handle: h, rows: { env_index: [4, 1], action: ['\\boxed{5}', 'no box'] } });
    expect(inline.body).toBeUndefined();
    expect(inline.header.n).toBe(2);
    expect(inline.header.rows.env_index).toEqual([4, 1]);
    expect(inline.header.rows.reward[1]).toBeCloseTo(-0.1);
    expect(inline.header.rows.terminated[1]).toBe(true);
    expect(inline.header.rows.info[0]).toMatchObject({ step_counter: 1 });

    const body = encodeStepRequest({ indices: [0, 2, 3, 5, 4], actions: Array(5).fill('\\boxed{2}') });
    const arrow = await c.ok({ op: 'step', handle: h }, body);
    const stepped = decodeRows(arrow.body!);
    expect(Array.from(stepped.indices)).toEqual([0, 2, 3, 5, 4]);
    expect(stepped.observations[0]).toMatch(/guessed 2/);

    const forced = await c.ok({ op: 'step', handle: h, reply_format: 'arrow', rows: { env_index: [0], action: ['\\boxed{3}'] } });
    expect(decodeRows(forced.body!).observations).toHaveLength(1);
  });

  it('same seed, same episode; sample draws from the env', async () => {
    const c = client();
    const h = await makeHandle(c);
    const a = await c.ok({ op: 'reset', handle: h, seed: 11 });
    const b = await c.ok({ op: 'reset', handle: h, seed: 11 });
    expect(a.header.rows.observation).toEqual(b.header.rows.observation);
    const s = await c.ok({ op: 'sample', handle: h, indices: [2, 0] });
    expect(s.header.env_index).toEqual([2, 0]);
    expect(s.header.action[0]).toMatch(/^\\boxed\{\d+\}$/);
  });

  it('spec, list_envs and stats', async () => {
    const c = client();
    const spec = await c.ok({ op: 'spec', env_id: ID });
    expect(spec.header.specs[0]).toMatchObject({ id: ID, family: 'game', options: { max_turns: 4 } });
    const list = await c.ok({ op: 'list_envs', filter: 'GuessTheNumber', verbose: true });
    expect(list.header.envs.map((e: { id: string }) => e.id)).toContain(ID);
    await makeHandle(c);
    const stats = await c.ok({ op: 'stats' });
    expect(stats.header.client).toMatchObject({ handles: 1, envs: 3 });
    expect(stats.header.server.rss_bytes).toBeGreaterThan(0);
  });

  it('register_dataset stores an Arrow table for the pushing client, not process-wide', async () => {
    const t = new Table({ question: vectorFromArray(['1+1?', '2+2?'], new Utf8()), answer: vectorFromArray([2n, 4n], new Int64()) });
    const c = client();
    const r = await c.ok({ op: 'register_dataset', name: 'test:sums' }, tableToIPC(t, 'stream'));
    expect(r.header).toMatchObject({ name: 'test:sums', rows: 2, columns: ['question', 'answer'] });
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ datasets: 1 });
    expect(getRegisteredDataset('test:sums')).toBeUndefined();
  });

  it('many requests in flight on one socket: replies match ids, a slow env never holds back others', async () => {
    const c = client();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    c.onEnvCall = async (call) => {
      if (call.call === 'step') await gate; // the Python-side env is slow
      if (call.call === 'reset') return { ok: true, result: { observation: 'start', info: {} } };
      if (call.call === 'step') return { ok: true, result: { observation: `echo ${call.args.action}`, reward: 1, terminated: false, truncated: false } };
      return { ok: true, result: null };
    };
    await c.ok({ op: 'register_env', env_id: 'test:Slow-v0' });
    const slowH = (await c.ok({ op: 'make', env_ids: 'test:Slow-v0' })).header.handle;
    await c.ok({ op: 'reset', handle: slowH });
    const fastH = await makeHandle(c);
    await c.ok({ op: 'reset', handle: fastH, seed: 1 });

    const slow = c.request({ op: 'step', handle: slowH, rows: { env_index: [0], action: ['hi'] } });
    const fast = await Promise.all(
      Array.from({ length: 40 }, (_, k) => c.request({ op: 'step', handle: fastH, rows: { env_index: [k % 3], action: ['\\boxed{1}'] } })),
    );
    expect(fast.every((r) => r.header.ok)).toBe(true);
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    await sleep(20);
    expect(slowDone).toBe(false);
    release();
    const s = await slow;
    expect(s.header.rows.observation).toEqual(['echo hi']);
  });
});

describe('gem-ts server: bad input gets an error reply with a code', () => {
  it('malformed frames and headers', async () => {
    const c = client();
    const h = packHeader({ v: 1, id: 1, op: 'ping' });
    expect((await c.sendRaw([h, Buffer.from('x'), Buffer.from('y')], null)).header.error.code).toBe('PROTOCOL_ERROR');
    expect((await c.sendRaw([Buffer.from([0xc1, 0xff, 0x00])], null)).header.error.code).toBe('PROTOCOL_ERROR');
    expect((await c.sendRaw([packHeader([1, 2])], null)).header.error.message).toMatch(/msgpack map/);
    const v2 = await c.sendRaw([packHeader({ v: 2, id: 5, op: 'ping' })], 5);
    expect(v2.header.error).toMatchObject({ code: 'UNSUPPORTED_VERSION', data: { supported: [1] } });
    expect((await c.request({ op: 'dance' })).header.error.code).toBe('UNKNOWN_OP');
    expect((await c.request({ op: 'make', env_ids: ID, numenvs: 2 })).header.error.message).toMatch(/unknown field 'numenvs'/);
  });

  it('bad make arguments name the problem', async () => {
    const c = client();
    expect((await c.request({ op: 'make', env_ids: 'game:Nope-v0' })).header.error.code).toBe('UNKNOWN_ENV');
    expect((await c.request({ op: 'make', env_ids: ID, options: { max_turns: 'x' } })).header.error.code).toBe('INVALID_OPTIONS');
    expect((await c.request({ op: 'make', env_ids: ID, wrappers: ['concat', 'time_limit'] })).header.error.code).toBe('INVALID_WRAPPER');
    expect((await c.request({ op: 'make', env_ids: [ID, ID], num_envs: 3 })).header.error.code).toBe('INVALID_REQUEST');
  });

  it('bad step batches', async () => {
    const c = client();
    const h = await makeHandle(c);
    expect((await c.request({ op: 'step', handle: h, rows: { env_index: [0], action: ['a'] } })).header.error.code).toBe('RESET_NEEDED');
    await c.ok({ op: 'reset', handle: h });
    expect((await c.request({ op: 'step', handle: h, rows: { env_index: [7], action: ['a'] } })).header.error.code).toBe('INDEX_OUT_OF_RANGE');
    expect((await c.request({ op: 'step', handle: h, rows: { env_index: [1, 1], action: ['a', 'b'] } })).header.error.code).toBe('INVALID_ACTION_BATCH');
    expect((await c.request({ op: 'step', handle: h })).header.error.code).toBe('INVALID_REQUEST');
    const body = encodeStepRequest({ indices: [0], actions: ['a'] });
    expect((await c.request({ op: 'step', handle: h, rows: { env_index: [0], action: ['a'] } }, body)).header.error.code).toBe('INVALID_REQUEST');
    const garbled = await c.request({ op: 'step', handle: h }, body.subarray(0, body.length - 20));
    expect(garbled.header).toMatchObject({ id: expect.any(Number), ok: false, error: { code: 'INVALID_BODY' } });
    expect((await c.request({ op: 'step', handle: h }, Buffer.from('not arrow at all'))).header.error.code).toBe('INVALID_BODY');
  });

  it('a step on a closed or foreign handle is UNKNOWN_HANDLE', async () => {
    const alice = client('alice');
    const bob = client('bob');
    const h = await makeHandle(alice);
    await alice.ok({ op: 'reset', handle: h });
    const theft = await bob.request({ op: 'step', handle: h, rows: { env_index: [0], action: ['\\boxed{1}'] } });
    expect(theft.header.error.code).toBe('UNKNOWN_HANDLE');
    expect((await bob.request({ op: 'close', handle: h })).header.error.code).toBe('UNKNOWN_HANDLE');
    await alice.ok({ op: 'close', handle: h });
    const closed = await alice.request({ op: 'step', handle: h, rows: { env_index: [0], action: ['\\boxed{1}'] } });
    expect(closed.header.error.code).toBe('UNKNOWN_HANDLE');
    expect((await alice.request({ op: 'reset', handle: 999 })).header.error.code).toBe('UNKNOWN_HANDLE');
  });

  it('limits: envs per handle, handles per client, message size', async () => {
    const c = client();
    const big = await c.request({ op: 'make', env_ids: ID, num_envs: 51 });
    expect(big.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_envs_per_handle' } });
    for (let i = 0; i < 3; i++) await makeHandle(c);
    const fourth = await c.request({ op: 'make', env_ids: ID });
    expect(fourth.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_handles_per_client' } });
    const huge = await c.request({ op: 'ping' }, Buffer.alloc(70 * 1024));
    expect(huge.header.error).toMatchObject({ code: 'MESSAGE_TOO_LARGE', data: { limit: 65536 } });
    expect(huge.header.id).toEqual(expect.any(Number));
    expect((await c.ok({ op: 'ping' })).header.ok).toBe(true);
  });
});

describe('gem-ts server: clients that leave', () => {
  it('close without a handle frees every env of the client', async () => {
    const c = client();
    await makeHandle(c);
    await makeHandle(c);
    const r = await c.ok({ op: 'close' });
    expect(r.header.closed).toHaveLength(2);
    expect(server.stats()).toMatchObject({ handles: 0, envs: 0 });
  });

  it('a client killed mid-episode has its envs freed after the idle timeout', async () => {
    const c = client();
    const h = await makeHandle(c);
    await c.ok({ op: 'reset', handle: h });
    await c.ok({ op: 'step', handle: h, rows: { env_index: [0], action: ['\\boxed{5}'] } });
    expect(server.stats().envs).toBe(3);
    c.close(); // gone without a word
    await sleep(900);
    expect(server.stats()).toMatchObject({ clients: 0, handles: 0, envs: 0 });
  });

  it('a client that keeps pinging keeps its envs', async () => {
    const c = client();
    await makeHandle(c);
    for (let i = 0; i < 8; i++) {
      await sleep(100);
      await c.ok({ op: 'ping' });
    }
    expect(server.stats().envs).toBe(3);
  });

  it('the envs a client registered from Python are its own and go away with it', async () => {
    const c = client();
    await c.ok({ op: 'register_env', env_id: 'test:Gone-v0' });
    expect((await c.ok({ op: 'list_envs', filter: 'test:Gone' })).header.envs).toEqual(['test:Gone-v0']);
    const other = client();
    expect((await other.ok({ op: 'list_envs', filter: 'test:Gone' })).header.envs).toEqual([]);
    await c.ok({ op: 'close' });
    const again = client();
    expect((await again.ok({ op: 'list_envs', filter: 'test:Gone' })).header.envs).toEqual([]);
  });

  it('a Python env that fails reports its error through the step reply', async () => {
    const c = client();
    c.onEnvCall = (call) =>
      call.call === 'step'
        ? { ok: false, error: { code: 'INTERNAL', message: 'ZeroDivisionError: division by zero' } }
        : { ok: true, result: call.call === 'reset' ? { observation: 'o', info: {} } : null };
    await c.ok({ op: 'register_env', env_id: 'test:Broken-v0' });
    const h = (await c.ok({ op: 'make', env_ids: 'test:Broken-v0' })).header.handle;
    await c.ok({ op: 'reset', handle: h });
    const r = await c.request({ op: 'step', handle: h, rows: { env_index: [0], action: ['x'] } });
    expect(r.header.error.message).toMatch(/ZeroDivisionError/);
    await c.ok({ op: 'close' });
  });
});
