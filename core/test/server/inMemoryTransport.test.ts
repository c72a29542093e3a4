/** The in-memory transport behaves as a wire would: copies, in order, on a later turn, nothing after close. */
import { describe, expect, it } from 'vitest';
import { InMemoryTransport } from '../../src/server/inMemoryTransport.ts';

const turn = () => new Promise((r) => setImmediate(r));

describe('InMemoryTransport', () => {
  it('carries frames both ways with the peer id, in order, on a later turn, as copies', async () => {
    const t = new InMemoryTransport();
    const got: [string, string[]][] = [];
    expect(await t.start((peer, frames) => got.push([peer.toString(), frames.map(String)]))).toMatch(/^inmemory:\/\//);
    const alice = t.connect('alice');
    const echoed: string[][] = [];
    alice.onMessage = (frames) => echoed.push(frames.map(String));

    const sent = Buffer.from('one');
    await alice.send([sent, new Uint8Array([0x32])]);
    await alice.send([Buffer.from('three')]);
    sent.write('XXX'); // the sender reusing its buffer changes nothing in flight
    expect(got).toEqual([]); // not delivered within the send
    await turn();
    await turn();
    expect(got).toEqual([
      ['alice', ['one', '2']],
      ['alice', ['three']],
    ]);

    const reply = Buffer.from('r1');
    t.send(Buffer.from('alice'), [reply]);
    t.send(Buffer.from('alice'), [Buffer.from('r2')]);
    reply.write('zz');
    await turn();
    expect(echoed).toEqual([['r1'], ['r2']]);
  });

  it('peers are told apart; a closed peer gets nothing and cannot send; a closed transport drops everything', async () => {
    const t = new InMemoryTransport();
    const from: string[] = [];
    await t.start((peer) => from.push(peer.toString('hex')));
    const a = t.connect();
    const b = t.connect();
    expect(a.id.equals(b.id)).toBe(false);
    t.connect('carol');
    expect(() => t.connect('carol')).toThrow(/already connected/);
    await a.send([Buffer.from('x')]);
    await b.send([Buffer.from('y')]);
    await turn();
    expect(from).toEqual([a.id.toString('hex'), b.id.toString('hex')]);

    const toB: string[] = [];
    b.onMessage = (f) => toB.push(String(f[0]));
    b.close();
    t.send(b.id, [Buffer.from('lost')]);
    await turn();
    expect(toB).toEqual([]);
    await expect(b.send([Buffer.from('z')])).rejects.toThrow(/closed/);
    await expect(a.send([])).rejects.toThrow(/at least one frame/);

    await t.close();
    await a.send([Buffer.from('after close')]);
    await turn();
    expect(from).toHaveLength(2);
    await expect(t.start(() => undefined)).rejects.toThrow(/already started/);
  });
});
