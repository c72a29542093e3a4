/**
 * Huge reply bodies live in memory V8 does not count as external (replyMemory.ts): the premise on this
 * Node, the paths allocReply takes (counted), the encoder writing a huge reply into it with the same
 * bytes as the one-pass encoding, and a real zeromq ROUTER sending such a frame intact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Dealer } from 'zeromq';
import { encodeRows, encodeRowsSliced, decodeRows } from '../../src/server/protocol/arrowCodec.ts';
import {
  allocReply,
  replyMemoryCounters,
  setArrayBufferBytesForTests,
  UNCOUNTED_BUDGET_BYTES,
  UNCOUNTED_MIN_BYTES,
} from '../../src/server/replyMemory.ts';
import { ZmqRouterTransport } from '../../src/server/zmqRouterTransport.ts';
import { uniqueIpc } from './wireClient.ts';

const MiB = 1 << 20;

const makeRows = (n: number, obsBytes: number) => ({
  indices: Array.from({ length: n }, (_, i) => i),
  observations: Array.from({ length: n }, (_, i) => (i % 7 === 3 ? `zahl ${i} ✓ ` : `turn ${i} `).padEnd(obsBytes, '.')),
  rewards: Float64Array.from({ length: n }, (_, i) => i / 8),
  terminated: Array.from({ length: n }, (_, i) => i % 3 === 0),
  truncated: Array.from({ length: n }, (_, i) => i % 5 === 0),
  infos: Array.from({ length: n }, (_, i) => (i % 4 === 0 ? { suffix: 'a', turn: i % 3 } : { suffix: 's' })),
});

afterEach(() => setArrayBufferBytesForTests(null));

describe('reply memory', () => {
  it('V8 counts an ordinary Buffer as external memory and not a SharedArrayBuffer (the premise)', () => {
    const external = () => process.memoryUsage().external;
    const e0 = external();
    const ordinary = Buffer.allocUnsafe(16 * MiB);
    const e1 = external();
    const shared = allocReply(16 * MiB);
    const e2 = external();
    expect(e1 - e0).toBeGreaterThanOrEqual(16 * MiB);
    expect(e2 - e1).toBeLessThan(MiB);
    expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(ordinary.length + shared.length).toBe(32 * MiB);
  });

  it('small replies and replies over the budget are ordinary Buffers; the rest shared (counted)', () => {
    const before = { ...replyMemoryCounters };
    expect(allocReply(UNCOUNTED_MIN_BYTES - 1).buffer).toBeInstanceOf(ArrayBuffer);
    const big = allocReply(UNCOUNTED_MIN_BYTES);
    expect(big.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(big.length).toBe(UNCOUNTED_MIN_BYTES);
    setArrayBufferBytesForTests(() => UNCOUNTED_BUDGET_BYTES - 2 * MiB);
    expect(allocReply(MiB).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(allocReply(3 * MiB).buffer).toBeInstanceOf(ArrayBuffer);
    expect(replyMemoryCounters).toEqual({
      shared: before.shared + 2,
      ordinary: before.ordinary + 1,
      overBudget: before.overBudget + 1,
    });
  });

  it("a huge reply is written into shared memory with the one-pass encoding's bytes; small ones as before", async () => {
    const rows = makeRows(3000, 1000); // ~3 MB
    const expected = Buffer.from(encodeRows(makeRows(3000, 1000)));
    const body = await encodeRowsSliced(rows, 256);
    expect(body.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(body.byteLength).toBeGreaterThan(UNCOUNTED_MIN_BYTES);
    expect(Buffer.from(body.buffer, body.byteOffset, body.byteLength).equals(expected)).toBe(true);
    expect(decodeRows(body).observations).toEqual(makeRows(3000, 1000).observations);
    const small = await encodeRowsSliced(makeRows(2000, 10), 256);
    expect(small.buffer).toBeInstanceOf(ArrayBuffer);
    expect(Buffer.from(small).equals(Buffer.from(encodeRows(makeRows(2000, 10))))).toBe(true);
  });
});

describe('a shared-memory frame over a zeromq ROUTER', () => {
  let transport: ZmqRouterTransport | undefined;
  let dealer: Dealer | undefined;
  afterEach(async () => {
    dealer?.close();
    await transport?.close();
  });

  it('arrives intact, three times from three fresh buffers', async () => {
    transport = new ZmqRouterTransport({ endpoint: uniqueIpc(), maxMessageBytes: 64 * MiB });
    const sent: Buffer[] = [];
    const endpoint = await transport.start((peer, frames) => {
      const body = allocReply(3 * MiB + frames[0][0]);
      for (let i = 0; i < body.length; i++) body[i] = (i * 31 + frames[0][0]) & 0xff;
      sent.push(Buffer.from(body)); // a private copy to compare with
      transport!.send(peer, [Buffer.from('h'), body]);
    });
    dealer = new Dealer({ linger: 0 });
    dealer.connect(endpoint);
    for (let k = 1; k <= 3; k++) {
      await dealer.send([Buffer.from([k])]);
      const [h, b] = await dealer.receive();
      expect(h.toString()).toBe('h');
      expect(b.equals(sent[k - 1])).toBe(true);
    }
  });
});
