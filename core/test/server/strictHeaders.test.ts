/**
 * Requests that used to be read leniently are refused with a clear code (issue 27, finding 8): a
 * version written as the float 1.0, a header that gives a field twice, a wrapper list with an empty
 * name, and a dataset body cut short at its end.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { startServer, TestScope } from './wireClient.ts';

const scope = new TestScope();
afterEach(() => scope.close());

/** msgpack bytes written by hand, so the test controls types and repeats that a packer would not write. */
const str = (s: string) => Buffer.concat([Buffer.from([0xa0 | s.length]), Buffer.from(s)]);
const int = (n: number) => Buffer.from([n]);
const float64 = (x: number) => {
  const b = Buffer.alloc(9);
  b[0] = 0xcb;
  b.writeDoubleBE(x, 1);
  return b;
};
const map = (...entries: [Buffer, Buffer][]) => Buffer.concat([Buffer.from([0x80 | entries.length]), ...entries.flat()]);

describe('strict headers', () => {
  it("refuses 'v' written as the float 1.0, wherever it stands", async () => {
    await scope.serve(startServer());
    const c = scope.client();
    const first = await c.sendRaw([map([str('v'), float64(1)], [str('id'), int(5)], [str('op'), str('ping')])], 5);
    expect(first.header.error).toMatchObject({ code: 'UNSUPPORTED_VERSION', data: { supported: [1] } });
    expect(first.header.error.message).toMatch(/float/);
    const later = await c.sendRaw([map([str('id'), int(6)], [str('op'), str('ping')], [str('v'), float64(1)])], 6);
    expect(later.header.error.code).toBe('UNSUPPORTED_VERSION');
    // The integer 1 is fine.
    expect((await c.sendRaw([map([str('v'), int(1)], [str('id'), int(7)], [str('op'), str('ping')])], 7)).header.ok).toBe(true);
  });

  it('refuses a header that gives a field twice', async () => {
    await scope.serve(startServer());
    const c = scope.client();
    const twiceOp = await c.sendRaw([map([str('v'), int(1)], [str('id'), int(8)], [str('op'), str('ping')], [str('op'), str('stats')])], 8);
    expect(twiceOp.header.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(twiceOp.header.error.message).toMatch(/twice/);
    const twiceId = await c.sendRaw([map([str('v'), int(1)], [str('id'), int(9)], [str('id'), int(9)], [str('op'), str('ping')])], 9);
    expect(twiceId.header.error.code).toBe('INVALID_REQUEST');
  });

  it("refuses a wrapper list with an empty name (',,,', 'concat,'); '' is no wrappers", async () => {
    await scope.serve(startServer());
    const c = scope.client();
    for (const wrappers of [',,,', 'concat,', ',concat', 'concat,,episode_tracking']) {
      const r = await c.request({ op: 'make', env_ids: 'game:GuessTheNumber-v0', wrappers });
      expect(r.header.error, wrappers).toMatchObject({ code: 'INVALID_WRAPPER', message: expect.stringMatching(/empty name/) });
    }
    expect((await c.ok({ op: 'make', env_ids: 'game:GuessTheNumber-v0', wrappers: '' })).header.wrappers).toEqual([]);
    expect((await c.ok({ op: 'make', env_ids: 'game:GuessTheNumber-v0', wrappers: 'concat' })).header.wrappers).toEqual(['concat']);
    expect((await c.ok({ op: 'stats' })).header.client.handles).toBe(2);
  });

  it('refuses a dataset body cut short at its end, or with bytes after its end', async () => {
    await scope.serve(startServer());
    const c = scope.client();
    const whole = tableToIPC(tableFromArrays({ problem: ['a', 'b', 'c'], answer: ['1', '2', '3'] }), 'stream');
    const eos = 8; // 0xFFFFFFFF then a zero length
    for (const [what, body] of [
      ['no end-of-stream marker', whole.subarray(0, whole.length - eos)],
      ['half a marker', whole.subarray(0, whole.length - 3)],
      ['stray bytes after the end', Buffer.concat([whole, Buffer.from([1, 2, 3])])],
    ] as const) {
      const r = await c.request({ op: 'register_dataset', name: 'cut' }, body);
      expect(r.header.error?.code, what).toBe('INVALID_BODY');
    }
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ datasets: 0, dataset_bytes: 0 });
    expect((await c.ok({ op: 'register_dataset', name: 'whole' }, whole)).header.rows).toBe(3);
  });
});
