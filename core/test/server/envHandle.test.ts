/**
 * A handle over the wire: it is an EnvPool, so pipelined requests on one env keep their order, a
 * huge step is served in slices that let another client's small steps through, indices are checked
 * once (the vector layer's message), and `spec` reports what the envs were made with.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeRows, encodeStepRequest } from '../../src/server/protocol/arrowCodec.ts';
import type { GemServer } from '../../src/server/server.ts';
import { SLICE_ABOVE, SLICE_ROWS } from '../../src/vector/envPool.ts';
import { makePool } from '../../src/vector/makeVec.ts';
import type { SliceSink } from '../../src/vector/vectorEnvBase.ts';
import { connect, startServer, type WireClient } from './wireClient.ts';

const ID = 'game:GuessTheNumber-v0-easy';

let server: GemServer;
const clients: WireClient[] = [];
function client(): WireClient {
  const c = connect(server);
  clients.push(c);
  return c;
}

beforeEach(async () => {
  server = await startServer({ limits: { max_envs_per_handle: 20_000, max_message_bytes: 64 * 1024 * 1024 } });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server.close();
});

describe('server handle', () => {
  it('a reset and a step of one env sent back to back run in that order', async () => {
    const c = client();
    const { header } = await c.ok({ op: 'make', env_ids: ID, num_envs: 2, autoreset_mode: 'disabled' });
    // The env was never reset: the step is valid only after the reset sent before it.
    const [reset, step] = await Promise.all([
      c.request({ op: 'reset', handle: header.handle, indices: [1], seed: 3 }),
      c.request({ op: 'step', handle: header.handle, rows: { env_index: [1], action: ['\\boxed{5}'] } }),
    ]);
    expect(reset.header.ok).toBe(true);
    expect(step.header).toMatchObject({ ok: true, rows: { env_index: [1] } });
  });

  it('bad indices get the vector layer’s error, once, before anything runs', async () => {
    const c = client();
    const { header } = await c.ok({ op: 'make', env_ids: ID, num_envs: 2 });
    const out = await c.request({ op: 'step', handle: header.handle, rows: { env_index: [0, 2], action: ['a', 'b'] } });
    expect(out.header.error).toMatchObject({ code: 'INDEX_OUT_OF_RANGE', message: expect.stringMatching(/env index 2 is out of range.*2 envs/) });
    const dup = await c.request({ op: 'reset', handle: header.handle, indices: [1, 1] });
    expect(dup.header.error).toMatchObject({ code: 'INVALID_ACTION_BATCH', message: expect.stringMatching(/appears twice/) });
  });

  it("another client's small steps are served while one huge step runs (fairness)", { timeout: 60_000 }, async () => {
    const n = SLICE_ABOVE + 5 * SLICE_ROWS;
    const big = client();
    const small = client();
    const bigHandle = (await big.ok({ op: 'make', env_ids: ID, num_envs: n })).header.handle;
    const smallHandle = (await small.ok({ op: 'make', env_ids: ID, num_envs: 1 })).header.handle;
    await big.ok({ op: 'reset', handle: bigHandle, seed: 0 });
    await small.ok({ op: 'reset', handle: smallHandle, seed: 0 });

    let bigDone = false;
    let smallDuringBig = 0;
    const body = encodeStepRequest({ indices: Array.from({ length: n }, (_, i) => i), actions: new Array(n).fill('\\boxed{5}') });
    const bigStep = big.ok({ op: 'step', handle: bigHandle }, body).then((r) => {
      bigDone = true;
      return r;
    });
    // The small tenant steps as fast as it can until the big reply is back; count, not time.
    while (!bigDone) {
      await small.ok({ op: 'step', handle: smallHandle, rows: { env_index: [0], action: ['\\boxed{5}'] } });
      if (!bigDone) smallDuringBig++;
    }
    const rows = decodeRows((await bigStep).body!);
    expect(rows.indices).toHaveLength(n);
    // Decode, step and encode: 9 slices each with a turn of the event loop between them; without slicing the
    // small client gets at most the one step that was already queued.
    expect(smallDuringBig).toBeGreaterThanOrEqual(3);
  });

  it("a huge step's Arrow reply is encoded slice by slice as the step runs, an inline one after it", { timeout: 60_000 }, async () => {
    // The pool the server makes, watched: after each slice, are the rows the batch holds still there?
    const slices: { format: string; released: boolean }[] = [];
    let format = '';
    await server.close();
    server = await startServer({
      limits: { max_envs_per_handle: 20_000, max_message_bytes: 64 * 1024 * 1024 },
      makePool: (ids, opts) => {
        const pool = makePool(ids, opts);
        const watch = (onSlice?: SliceSink): SliceSink => (rows, from, to) => {
          onSlice?.(rows, from, to);
          slices.push({ format, released: rows.observations.slice(from, to).every((o) => o === '') });
        };
        const [step, stepDecoding] = [pool.stepInOrder.bind(pool), pool.stepInOrderWhenDecoded.bind(pool)];
        pool.stepInOrder = (actions, indices, onSlice) => step(actions, indices, watch(onSlice));
        pool.stepInOrderWhenDecoded = (batch, onSlice) => stepDecoding(batch, watch(onSlice));
        return pool;
      },
    });
    const n = SLICE_ABOVE + 3 * SLICE_ROWS; // 7 slices
    const c = client();
    const h = (await c.ok({ op: 'make', env_ids: ID, num_envs: n })).header.handle;
    await c.ok({ op: 'reset', handle: h, seed: 0 });
    const indices = Array.from({ length: n }, (_, i) => i);
    // A body over 64 KiB is decoded in slices too (stepInOrderWhenDecoded); a smaller one at once (stepInOrder).
    const [big, small] = ['My answer, after some thought, is \\boxed{5}', '\\boxed{5}'].map((a) => encodeStepRequest({ indices, actions: new Array(n).fill(a) }));
    expect([big.byteLength > 64 * 1024, small.byteLength > 64 * 1024]).toEqual([true, false]);
    format = 'arrow';
    const arrow = decodeRows((await c.ok({ op: 'step', handle: h, reply_format: 'arrow' }, big)).body!);
    expect(decodeRows((await c.ok({ op: 'step', handle: h, reply_format: 'arrow' }, small)).body!).observations).toHaveLength(n);
    format = 'inline';
    const inline = (await c.ok({ op: 'step', handle: h, reply_format: 'inline' }, small)).header.rows;
    // Encoded (and let go of) as each slice came; an inline reply keeps its rows for the header.
    expect(slices.filter((x) => x.format === 'arrow')).toEqual(new Array(14).fill({ format: 'arrow', released: true }));
    expect(slices.filter((x) => x.format === 'inline')).toEqual(new Array(7).fill({ format: 'inline', released: false }));
    expect(arrow.observations).toHaveLength(n);
    expect(arrow.observations.every((o) => o.length > 0)).toBe(true);
    expect(inline.observation).toHaveLength(n);
  });

  it('spec of a handle reports the resolved options and the wrapper stack', async () => {
    const c = client();
    const made = await c.ok({
      op: 'make',
      env_ids: 'game:GuessTheNumber-v0',
      num_envs: 2,
      options: { max_turns: 2, min_number: 1, max_number: 3 },
      wrappers: ['time_limit', 'concat'],
      wrapper_options: { max_episode_steps: 4 },
    });
    const { header } = await c.ok({ op: 'spec', handle: made.header.handle });
    expect(header.specs).toHaveLength(1); // both envs share one spec
    const spec = header.specs[0];
    expect(spec).toMatchObject({
      id: 'game:GuessTheNumber-v0',
      options: { max_turns: 2, min_number: 1, max_number: 3 },
      wrappers: ['time_limit', 'concat'],
      wrapperOptions: { max_episode_steps: 4 },
    });
    // The spec's fields make the same env again through an ordinary make.
    const again = await c.ok({ op: 'make', env_ids: spec.id, options: spec.options, wrappers: spec.wrappers, wrapper_options: spec.wrapperOptions });
    expect(again.header.repr[0]).toBe(made.header.repr[0]);
    const a = await c.ok({ op: 'reset', handle: made.header.handle, indices: [0], seed: 9 });
    const b = await c.ok({ op: 'reset', handle: again.header.handle, seed: 9 });
    expect(b.header.rows.observation).toEqual(a.header.rows.observation);
  });
});

describe('server handle: a huge step body is decoded in slices', () => {
  it('keeps its place in the handle order and reports a bad body as INVALID_BODY', { timeout: 60_000 }, async () => {
    const n = 6000; // a body over 64 KiB
    const c = client();
    // strict_reset: a step of an ended env is refused, which shows it was ordered after the big step.
    const h = (await c.ok({ op: 'make', env_ids: ID, num_envs: n, autoreset_mode: 'disabled', options: { strict_reset: true } })).header.handle;
    await c.ok({ op: 'reset', handle: h, seed: 1 });
    const indices = Array.from({ length: n }, (_, i) => i);
    const body = encodeStepRequest({ indices, actions: new Array(n).fill('no box') }); // ends every episode
    expect(body.byteLength).toBeGreaterThan(64 * 1024);
    // Sent right behind it, on an env the big step ends: it must see the env ended (RESET_NEEDED).
    const [big, after] = await Promise.all([
      c.request({ op: 'step', handle: h }, body),
      c.request({ op: 'step', handle: h, rows: { env_index: [n - 1], action: ['\\boxed{1}'] } }),
    ]);
    expect(big.header.ok).toBe(true);
    expect(decodeRows(big.body!).terminated.every(Boolean)).toBe(true);
    expect(after.header.error).toMatchObject({ code: 'RESET_NEEDED' });
    // Action offsets going backwards deep in a big body (found after some slices were read), on an
    // unknown handle: the body's error wins.
    const bad = Buffer.from(body);
    const offsetsAt = bad.indexOf(Buffer.from(Int32Array.from([0, 6, 12, 18]).buffer));
    expect(offsetsAt).toBeGreaterThan(0);
    bad.writeInt32LE(1, offsetsAt + 4 * 5000);
    const reply = await c.request({ op: 'step', handle: 999_999 }, bad);
    expect(reply.header.error.code).toBe('INVALID_BODY');
  });
});
