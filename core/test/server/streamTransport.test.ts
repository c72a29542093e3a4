/**
 * The server over the stream transport (a plain unix or tcp socket with gem-ts's own framing), end to
 * end: the same requests and replies as over ZeroMQ, one session per connection, auth that ends with
 * the connection, a message over the limit answered, a broken stream dropped alone, the socket file
 * private and removed at close; and the framing itself cut at every byte.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FrameReader, frameHeader, StreamTransport } from '../../src/server/streamTransport.ts';
import { twoClientConversation } from './twoClientConversation.ts';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import { GemServer } from '../../src/server/server.ts';
import { startSocketServer, TestScope, uniqueStreamIpc, type WireClient } from './wireClient.ts';

const ID = 'game:GuessTheNumber-v0-easy';

const scope = new TestScope();
afterEach(() => scope.close());
const client = (): WireClient => scope.socketClient();

const message = (...frames: Buffer[]) => Buffer.concat([frameHeader(frames), ...frames]);

describe('the stream framing', () => {
  it('cuts messages out of a stream split at every byte, and several from one chunk', () => {
    const a = [Buffer.from('header-a'), Buffer.alloc(300, 7)];
    const b = [Buffer.from('header-b')];
    const c = [Buffer.from('h'), Buffer.alloc(0), Buffer.from('tail')];
    const stream = Buffer.concat([message(...a), message(...b), message(...c)]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const reader = new FrameReader(1 << 20);
      const got = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      expect(got).toEqual([a, b, c]);
    }
    const bytewise = new FrameReader(1 << 20);
    const got: Buffer[][] = [];
    for (let k = 0; k < stream.length; k++) got.push(...bytewise.push(stream.subarray(k, k + 1)));
    expect(got).toEqual([a, b, c]);
  });

  it('refuses a frame count of 0 or over 16, and a message over the cap, before reading its bytes', () => {
    const count = (n: number) => Buffer.from(Uint32Array.of(n).buffer);
    expect(() => new FrameReader(100).push(count(0))).toThrow(/0 frames/);
    expect(() => new FrameReader(100).push(count(17))).toThrow(/17 frames/);
    expect(() => new FrameReader(100).push(frameHeader([Buffer.alloc(101)]))).toThrow(/101 bytes/);
  });
});

describe('server on the stream transport', () => {
  it('serves make, reset and an Arrow step; a connection is a session; closing removes the private socket file', async () => {
    const endpoint = uniqueStreamIpc();
    const server = await scope.serve(startSocketServer({ endpoint, limits: { inline_max_rows: 1, max_message_bytes: 64 * 1024 } }));
    expect(server.endpoint).toBe(endpoint);
    const path = endpoint.slice('stream+ipc://'.length);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    await twoClientConversation(client(), client);

    await scope.close();
    expect(existsSync(path)).toBe(false);
  });

  it('serves tcp on a port it picks, and a stream that breaks the framing loses only its own connection', async () => {
    const server = await scope.serve(startSocketServer({ endpoint: 'stream+tcp://127.0.0.1:0' }));
    expect(server.endpoint).toMatch(/^stream\+tcp:\/\/127\.0\.0\.1:\d+$/);
    const good = client();
    await good.ok({ op: 'hello' });
    const port = Number(/:(\d+)$/.exec(server.endpoint)![1]);
    const closed = await new Promise<boolean>((resolve) => {
      const bad = netConnect(port, '127.0.0.1', () => bad.write(Buffer.from(Uint32Array.of(99, 1, 2).buffer)));
      bad.on('close', () => resolve(true));
      bad.on('error', () => undefined);
    });
    expect(closed).toBe(true);
    expect((await good.ok({ op: 'ping' })).header.ok).toBe(true);
    expect((await good.ok({ op: 'stats' })).header.server.connections).toBe(1);
  });

  it('auth holds for its connection only: a new connection is refused until it says hello with the token', async () => {
    await scope.serve(startSocketServer({ endpoint: uniqueStreamIpc(), authToken: 'sesame' }));
    const first = client();
    expect((await first.request({ op: 'stats' })).header.error.code).toBe('UNAUTHORIZED');
    const hello = await first.ok({ op: 'hello', token: 'sesame' });
    const h = (await first.ok({ op: 'make', env_ids: ID, num_envs: 1 })).header.handle;
    first.close();

    const next = client();
    expect((await next.request({ op: 'reset', handle: h })).header.error.code).toBe('UNAUTHORIZED');
    expect((await next.request({ op: 'hello', token: 'wrong' })).header.error.code).toBe('UNAUTHORIZED');
    // The session lives on for whoever proves both the token and its resume secret.
    await next.ok({ op: 'hello', token: 'sesame', resume: hello.header.resume });
    expect((await next.ok({ op: 'reset', handle: h, seed: 0 })).header.ok).toBe(true);
  });

  it("takes over a killed server's socket file, never a live server's, nor a file that is not a socket", async () => {
    const endpoint = uniqueStreamIpc();
    const path = endpoint.slice('stream+ipc://'.length);
    // A socket file nobody listens on: a process that listened there was SIGKILLed.
    const killed = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(killed.signal).toBe('SIGKILL');
    expect(statSync(path).isSocket()).toBe(true);
    const live = await scope.serve(startSocketServer({ endpoint }));
    expect((await client().ok({ op: 'ping' })).header.ok).toBe(true);

    const second = new StreamTransport({ endpoint, maxMessageBytes: 1024 });
    await expect(second.start(() => undefined)).rejects.toThrow(/EADDRINUSE/);
    expect((await client().ok({ op: 'ping' })).header.ok).toBe(true); // the live one kept its path
    await live.close();

    const plain = `${path}.txt`;
    writeFileSync(plain, 'not a socket');
    const onFile = new StreamTransport({ endpoint: `stream+ipc://${plain}`, maxMessageBytes: 1024 });
    await expect(onFile.start(() => undefined)).rejects.toThrow(/EADDRINUSE/);
    expect(statSync(plain).isFile()).toBe(true);
    rmSync(plain);
  });

  it('closes a connection that sends no whole message in time; one that spoke stays', async () => {
    const endpoint = uniqueStreamIpc();
    const transport = new StreamTransport({ endpoint, maxMessageBytes: 1 << 20 }, 300);
    await scope.serve((async () => {
      const server = new GemServer({ catalog: defaultRegistry, transport });
      await server.start();
      return server;
    })());
    const path = endpoint.slice('stream+ipc://'.length);
    const closedAfter = (send: Buffer) =>
      new Promise<number>((resolve) => {
        const t0 = Date.now();
        const s = netConnect(path, () => s.write(send));
        s.on('close', () => resolve(Date.now() - t0));
        s.on('error', () => undefined);
      });
    const [silent, half] = await Promise.all([closedAfter(Buffer.alloc(0)), closedAfter(frameHeader([Buffer.alloc(10)]))]);
    expect(silent).toBeGreaterThanOrEqual(250);
    expect(half).toBeGreaterThanOrEqual(250);
    const talker = client();
    await talker.ok({ op: 'ping' });
    await new Promise((r) => setTimeout(r, 600));
    expect((await talker.ok({ op: 'stats' })).header.server.connections).toBe(1);
  });
});
