import { Field, Int32, Schema, Utf8, Int64, makeTable, tableToIPC, vectorFromArray, Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  decodeRows,
  decodeStepRequest,
  decodeStepRequestSliced,
  encodeRows,
  encodeRowsSliced,
  encodeStepRequest,
  RowsStream,
  tableToRows,
} from '../../../src/server/protocol/arrowCodec.ts';
import { idleScratchChunks, scratchCounters } from '../../../src/server/protocol/scratchBytes.ts';

describe('step request codec', () => {
  it('round-trips indices and non-ASCII actions', () => {
    const actions = ['\\boxed{3}', '', 'ünï ✓ 🎲', 'x'.repeat(10_000)];
    const r = decodeStepRequest(encodeStepRequest({ indices: [3, 0, 2, 1], actions }));
    expect(Array.from(r.indices)).toEqual([3, 0, 2, 1]);
    expect(r.actions).toEqual(actions);
  });

  it('refuses a body of the wrong schema, naming both schemas', () => {
    const wrong = tableToIPC(makeTable({ env_index: Int32Array.from([0]) }), 'stream');
    expect(() => decodeStepRequest(wrong)).toThrowError(/must have the schema \(env_index:Int32, action:Utf8\), got \(env_index:Int32\)/);
    const wrongType = tableToIPC(new Table({ env_index: vectorFromArray([0n], new Int64()), action: vectorFromArray(['a'], new Utf8()) }), 'stream');
    expect(() => decodeStepRequest(wrongType)).toThrowError(expect.objectContaining({ code: 'INVALID_BODY' }));
  });

  it('refuses nulls in the action column', () => {
    const t = new Table({ env_index: vectorFromArray([0, 1], new Int32()), action: vectorFromArray(['a', null], new Utf8()) });
    expect(() => decodeStepRequest(tableToIPC(t, 'stream'))).toThrowError(/'action' has nulls/);
  });

  it('refuses bytes that are not an Arrow stream', () => {
    for (const bad of [Buffer.from('hello world'), Buffer.alloc(64, 0xff), encodeStepRequest({ indices: [0], actions: ['a'] }).subarray(0, 40)]) {
      expect(() => decodeStepRequest(bad)).toThrowError(expect.objectContaining({ code: 'INVALID_BODY' }));
    }
  });
});

describe('rows codec', () => {
  it('round-trips rows; equal infos share one dictionary entry', () => {
    const info = { suffix: 'Enter your next guess.' };
    const rows = {
      indices: [0, 1, 2, 3],
      observations: ['a', 'b', '', 'ü'],
      rewards: Float64Array.from([0, 1, -0.1, 0.25]),
      terminated: [false, true, false, true],
      truncated: [true, false, false, true],
      infos: [info, { ...info }, info, { other: [1, { x: null }] }],
    };
    const bytes = encodeRows(rows);
    const back = decodeRows(bytes);
    expect(Array.from(back.indices)).toEqual(rows.indices);
    expect(back.observations).toEqual(rows.observations);
    expect(Array.from(back.rewards)).toEqual(Array.from(rows.rewards));
    expect(back.terminated).toEqual(rows.terminated);
    expect(back.truncated).toEqual(rows.truncated);
    expect(back.infos).toEqual(rows.infos);
    // Two distinct JSON texts in the dictionary, not four.
    expect(Buffer.from(bytes).toString('utf8').split('"suffix"').length - 1).toBe(1);
  });

  it('nested infos: equal ones share an entry, look-alikes never merge', () => {
    const end = (obs: unknown) => ({ suffix: 'Enter your next guess.', final_obs: obs, final_info: { suffix: 'Done.' } });
    const infos = [
      end('You won at turn 1.'),
      { suffix: 'Enter your next guess.' },
      end('You won at turn 1.'),
      end('You won at turn 2.'),
      // Same characters split differently across keys and values, or differing only in type.
      { a: 'x', b: { c: 'y' } },
      { a: 'xk1:b', b: { c: 'y' } },
      { a: 'x', b: { c: 'y', d: 1 } },
      { a: 'x', b: { c: '1' } },
      { a: 'x', b: { c: 1 } },
      { a: 'x', b: { c: true } },
      { a: 'x', b: { c: 'true' } },
      { a: 'x', b: { c: null } },
      { a: 'x', b: { c: [1, 2] } },
      { a: 'x', b: { c: { d: { e: 'deep' } } } },
      { a: 'x', b: { c: { d: { e: 'deeper' } } } },
      { a: 'x', b: { c: Number.NaN } },
      { a: 'x', b: { c: new Date(0) } },
      // Where a nested object ends matters; keys and values never stand in for each other.
      { x: { a: 'b' }, y: 1 },
      { x: { a: 'b', y: 1 } },
      { x: { a: 'y' }, b: 1 },
      { x: { y: 'a' }, b: 1 },
      { x: { a: 'b' }, y: 1 },
      // A flat info with a key whose value is undefined is not one with another key.
      { other: 1 },
      { suffix: undefined },
    ];
    const observations = infos.map((_, i) => (i % 3 === 0 ? `ünï ${i} 🎲` : `obs ${i}`));
    const n = infos.length;
    const rows = {
      indices: Array.from({ length: n }, (_, i) => i),
      observations,
      rewards: new Float64Array(n),
      terminated: new Array<boolean>(n).fill(false),
      truncated: new Array<boolean>(n).fill(false),
      infos,
    };
    const back = decodeRows(encodeRows(rows));
    expect(back.infos).toEqual(infos.map((i) => JSON.parse(JSON.stringify(i))));
    expect(back.observations).toEqual(observations);
    // The two equal end-of-episode infos are one entry.
    expect(Buffer.from(encodeRows(rows)).toString('utf8').split('You won at turn 1.').length - 1).toBe(1);
    // An all-ASCII batch takes the direct path and still round-trips.
    const ascii = { ...rows, observations: observations.map((_, i) => `plain ${i}`) };
    expect(decodeRows(encodeRows(ascii)).observations).toEqual(ascii.observations);
  });

  it('encodes an empty batch', () => {
    const back = decodeRows(encodeRows({ indices: [], observations: [], rewards: new Float64Array(0), terminated: [], truncated: [], infos: [] }));
    expect(back.observations).toEqual([]);
  });
});

describe('tableToRows (register_dataset)', () => {
  it('turns any table into plain rows; int64 becomes a number', () => {
    const t = new Table({ q: vectorFromArray(['a', 'b'], new Utf8()), n: vectorFromArray([1n, 2n], new Int64()) });
    expect(tableToRows(tableToIPC(t, 'stream'))).toEqual([
      { q: 'a', n: 1 },
      { q: 'b', n: 2 },
    ]);
    void new Schema([new Field('x', new Int32())]);
  });
});

describe('untrusted Arrow bytes', () => {
  it('a schema that claims billions of fields is refused at once (found by the fuzz test)', async () => {
    const { readFileSync } = await import('node:fs');
    const { FIXTURE_DIR } = await import('../../fixtures/wire/generate.ts');
    const body = Buffer.from(readFileSync(`${FIXTURE_DIR}/register_dataset_request.body.arrow`));
    body[235] = 4; // this one flipped byte made arrow-js loop until the heap ran out
    const t0 = performance.now();
    expect(() => tableToRows(body)).toThrowError(expect.objectContaining({ code: 'INVALID_BODY' }));
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('a batch whose metadata claims more rows than its buffers hold is refused', () => {
    const n = 37;
    const bytes = Buffer.from(encodeStepRequest({ indices: Array.from({ length: n }, (_, i) => i), actions: Array(n).fill('a') }));
    // Patch every little-endian int64 37 (the batch length and both column node lengths) to 5000.
    let patched = 0;
    for (let i = 0; i + 8 <= bytes.length; i++) {
      if (bytes.readBigInt64LE(i) === BigInt(n)) {
        bytes.writeBigInt64LE(5000n, i);
        patched++;
      }
    }
    expect(patched).toBeGreaterThanOrEqual(3);
    expect(() => decodeStepRequest(bytes)).toThrowError(/inconsistent|not a valid Arrow IPC stream/);
  });
});

describe('step request reader (lean path)', () => {
  it('reads every record batch of a stream, in order, as arrow-js wrote them', async () => {
    const { RecordBatchStreamWriter } = await import('apache-arrow');
    const part = (ids: number[], acts: string[]) =>
      new Table({ env_index: vectorFromArray(ids, new Int32()), action: vectorFromArray(acts, new Utf8()) }).batches[0];
    const writer = new RecordBatchStreamWriter();
    writer.write(part([2, 0], ['a', 'ü']));
    writer.write(part([1], ['\\boxed{9}']));
    writer.finish();
    const r = decodeStepRequest(writer.toUint8Array(true));
    expect(Array.from(r.indices)).toEqual([2, 0, 1]);
    expect(r.actions).toEqual(['a', 'ü', '\\boxed{9}']);
  });

  it('names the schema it got when the columns are swapped', () => {
    const t = new Table({ action: vectorFromArray(['a'], new Utf8()), env_index: vectorFromArray([0], new Int32()) });
    expect(() => decodeStepRequest(tableToIPC(t, 'stream'))).toThrowError(/got \(action:Utf8, env_index:Int32\)/);
  });
});

/** Counts turns of the event loop until stopped: other clients' chances to be served. */
function countTurns(): { stop: () => number } {
  let turns = 0;
  let on = true;
  const tick = () => {
    turns++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  return { stop: () => ((on = false), turns) };
}

describe('sliced reply encoding (fairness)', () => {
  it('gives the same bytes as one pass, and yields to the event loop between slices', async () => {
    const n = 1000;
    const end = { suffix: 'Enter your next guess.', final_obs: 'You won.', final_info: { suffix: 'x' } };
    const rows = {
      indices: Array.from({ length: n }, (_, i) => (i * 7) % n),
      // ASCII and non-ASCII slices mixed: the text column switches to bytes part-way.
      observations: Array.from({ length: n }, (_, i) => (i > 600 && i % 3 === 0 ? `zahl ${i} ✓` : `turn ${i}`)),
      rewards: Float64Array.from({ length: n }, (_, i) => i / 10),
      terminated: Array.from({ length: n }, (_, i) => i % 5 === 0),
      truncated: Array.from({ length: n }, (_, i) => i % 7 === 0),
      infos: Array.from({ length: n }, (_, i) => (i % 4 === 0 ? { ...end } : { suffix: `s${i % 3}` })),
    };
    const turns = countTurns();
    const sliced = await encodeRowsSliced(rows, 64);
    expect(turns.stop()).toBeGreaterThanOrEqual(10); // 16 slices: other work ran in between
    expect(Buffer.from(sliced).equals(Buffer.from(encodeRows(rows)))).toBe(true);
    const back = decodeRows(sliced);
    expect(back.indices).toEqual(rows.indices);
    expect(back.observations).toEqual(rows.observations);
    // A reset's rows (no rewards or flags) encode as reward 0 and both flags false.
    const reset = decodeRows(encodeRows({ indices: [1, 0], observations: ['a', 'b'], infos: [{}, {}] }));
    expect({ r: Array.from(reset.rewards), t: reset.terminated, u: reset.truncated }).toEqual({ r: [0, 0], t: [false, false], u: [false, false] });
  });
});

describe('sliced step request decoding (fairness)', () => {
  it('reads the same columns as one pass, also across several record batches', async () => {
    const actions = Array.from({ length: 100 }, (_, i) => (i % 9 === 0 ? `zahl ${i} ✓` : `\\boxed{${i}}`));
    const indices = Array.from({ length: 100 }, (_, i) => 99 - i);
    const one = encodeStepRequest({ indices, actions });
    expect(await decodeStepRequestSliced(one, 7)).toEqual(decodeStepRequest(one));
    const t = new Table({ env_index: vectorFromArray(indices, new Int32()), action: vectorFromArray(actions, new Utf8()) });
    const two = tableToIPC(new Table([...t.batches, ...t.batches]), 'stream');
    const sliced = await decodeStepRequestSliced(two, 13);
    expect(sliced).toEqual(decodeStepRequest(two));
    expect(sliced.indices).toHaveLength(200);
  });
});

describe('a reply encoded while its step runs (fairness: the rows die young)', () => {
  const makeRows = (n: number, obsBytes = 20) => ({
    indices: Array.from({ length: n }, (_, i) => i),
    observations: Array.from({ length: n }, (_, i) => (i % 5 === 1 ? `zahl ${i} ✓ ` : `turn ${i} `).padEnd(obsBytes, '.')),
    rewards: Float64Array.from({ length: n }, (_, i) => i / 4),
    terminated: Array.from({ length: n }, (_, i) => i % 3 === 0),
    truncated: Array.from({ length: n }, () => false),
    infos: Array.from({ length: n }, (_, i) => (i % 4 === 0 ? { suffix: 'a', final_obs: `o${i % 2}`, final_info: { suffix: 'b' } } : { suffix: 's' })),
  });

  it("encodes each slice when it comes, lets go of its strings and infos, and gives encodeRows' bytes", async () => {
    const rows = makeRows(1000);
    const expected = Buffer.from(encodeRows(makeRows(1000)));
    const stream = new RowsStream();
    for (let from = 0; from < 768; from += 256) stream.onSlice(rows, from, from + 256);
    expect(stream.slicesSeen).toBe(3);
    // Encoded rows are no longer held by the batch; the rest (the step ended) is encoded by finish.
    expect(rows.observations.slice(0, 768).every((o) => o === '')).toBe(true);
    expect(rows.infos.slice(0, 768).every((o) => Object.keys(o).length === 0)).toBe(true);
    expect(rows.observations[768]).not.toBe('');
    const body = await stream.finish(rows, 64);
    expect(Buffer.from(body).equals(expected)).toBe(true);
    // Slices out of order are left to finish, which then encodes the whole batch itself.
    const other = makeRows(600);
    const late = new RowsStream();
    late.onSlice(other, 256, 512);
    expect(late.slicesSeen).toBe(0);
    expect(Buffer.from(await late.finish(other, 256)).equals(Buffer.from(encodeRows(makeRows(600))))).toBe(true);
  });

  it('copies a reply of several MB into its message in parts, yielding to the event loop between them', async () => {
    const n = 2000;
    const rows = makeRows(n, 2500); // ~5 MB of observations
    const expected = Buffer.from(encodeRows(makeRows(n, 2500)));
    const stream = new RowsStream();
    // Every row already encoded, as the step ran: what is left is the copy into the message.
    for (let from = 0; from < n; from += 250) stream.onSlice(rows, from, from + 250);
    const turns = countTurns();
    const body = await stream.finish(rows, n);
    expect(turns.stop()).toBeGreaterThanOrEqual(3); // ~1 MiB parts: other work ran in between
    expect(Buffer.from(body).equals(expected)).toBe(true);
  });

  it("reuses the off-heap scratch of one reply's text for the next", async () => {
    await encodeRowsSliced(makeRows(3000, 1000), 256); // ~3 MB of text
    expect(idleScratchChunks()).toBeGreaterThanOrEqual(2);
    const before = { ...scratchCounters };
    const body = await encodeRowsSliced(makeRows(3000, 1000), 256);
    expect(scratchCounters.allocated).toBe(before.allocated);
    expect(scratchCounters.reused).toBeGreaterThan(before.reused);
    expect(decodeRows(body).observations).toEqual(makeRows(3000, 1000).observations);
  });
});
