/**
 * Auth is bound to the connection, not to the routing id a client picks (issue 27, build 3): a new
 * connection that presents an authenticated client's routing id after it left has proven nothing; a
 * reconnect gets its session back only by saying hello again (token and resume secret); clients
 * without the token leave no session behind; routing ids never reach info-level logs.
 * The routing-id cases run on a real ZeroMQ ROUTER, where a client really can choose its id.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { pino } from 'pino';
import type { GemServer } from '../../src/server/server.ts';
import { startServer, startSocketServer, TestScope, type TestServerOptions } from './wireClient.ts';

const ID = 'game:GuessTheNumber-v0';
const TOKEN = 'tok-3f9a';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const scope = new TestScope();
let server: GemServer | undefined;
const socketClient = (routingId?: string) => scope.socketClient(routingId);
afterEach(() => scope.close());

/** Waits (up to 1 s) until the server has seen the connection end: a socket close reaches it asynchronously. */
async function untilUnbound(expected: number): Promise<void> {
  for (let i = 0; i < 100 && server!.stats().connections !== expected; i++) await sleep(10);
}

describe('a stolen routing id', () => {
  it('with a token: a new connection with the same id and no token gets UNAUTHORIZED for everything', async () => {
    server = await scope.serve(startSocketServer({ authToken: TOKEN }));
    const victim = socketClient('victim-routing-id');
    const hello = (await victim.ok({ op: 'hello', token: TOKEN })).header;
    const h = (await victim.ok({ op: 'make', env_ids: ID, num_envs: 2 })).header.handle;
    await victim.ok({ op: 'reset', handle: h, seed: 1 });
    victim.close();
    await untilUnbound(0);

    const thief = socketClient('victim-routing-id');
    for (const fields of [{ op: 'ping' }, { op: 'stats' }, { op: 'reset', handle: h }, { op: 'close', handle: h }, { op: 'close' }, { op: 'hello', resume: hello.resume }]) {
      const r = await thief.request(fields);
      expect(r.header.error?.code, JSON.stringify(fields)).toBe('UNAUTHORIZED');
    }
    // The victim's session is untouched: its envs are still there.
    expect(server.stats()).toMatchObject({ clients: 1, handles: 1, envs: 2 });
    expect(hello.resume).toEqual(expect.any(String));

    // With the token but without the resume secret, the thief is a new tenant: the handle is not its own.
    expect((await thief.ok({ op: 'hello', token: TOKEN })).header.resume).not.toBe(hello.resume);
    expect((await thief.request({ op: 'reset', handle: h })).header.error.code).toBe('UNKNOWN_HANDLE');
    expect((await thief.ok({ op: 'stats' })).header.client).toMatchObject({ handles: 0, envs: 0 });
  });

  it('without a token: a new connection with the same id is a new session, not the old one', async () => {
    server = await scope.serve(startSocketServer());
    const victim = socketClient('victim-2');
    await victim.ok({ op: 'hello' });
    const h = (await victim.ok({ op: 'make', env_ids: ID })).header.handle;
    victim.close();
    await untilUnbound(0);

    const thief = socketClient('victim-2');
    expect((await thief.request({ op: 'reset', handle: h })).header.error.code).toBe('UNKNOWN_HANDLE');
    expect((await thief.request({ op: 'close', handle: h })).header.error.code).toBe('UNKNOWN_HANDLE');
    expect((await thief.ok({ op: 'stats' })).header.client).toMatchObject({ handles: 0, envs: 0 });
    expect(server.stats()).toMatchObject({ clients: 2, handles: 1, envs: 1 });
  });

  it('a reconnect authenticates again, and gets its session back with its resume secret', async () => {
    server = await scope.serve(startSocketServer({ authToken: TOKEN }));
    const first = socketClient('py-reconnects');
    const { resume } = (await first.ok({ op: 'hello', token: TOKEN })).header;
    const h = (await first.ok({ op: 'make', env_ids: ID })).header.handle;
    first.close();
    await untilUnbound(0);

    const again = socketClient('py-reconnects');
    // The same id, the secret, no token: still refused.
    expect((await again.request({ op: 'hello', resume })).header.error.code).toBe('UNAUTHORIZED');
    expect((await again.request({ op: 'reset', handle: h })).header.error.code).toBe('UNAUTHORIZED');
    // Token and secret: the same session, its handle works.
    expect((await again.ok({ op: 'hello', token: TOKEN, resume })).header.resume).toBe(resume);
    expect((await again.ok({ op: 'reset', handle: h })).header.n).toBe(1);
    expect(server.stats()).toMatchObject({ clients: 1, handles: 1 });
  });

  it('the in-memory twin reports a closed peer the same way', async () => {
    server = await scope.serve(startServer({ authToken: TOKEN }));
    const victim = scope.client('same-id');
    await victim.ok({ op: 'hello', token: TOKEN });
    const h = (await victim.ok({ op: 'make', env_ids: ID })).header.handle;
    victim.close();
    const thief = scope.client('same-id');
    expect((await thief.request({ op: 'reset', handle: h })).header.error.code).toBe('UNAUTHORIZED');
    expect(server.stats()).toMatchObject({ clients: 1, connections: 0, handles: 1 });
  });

  it('a resume secret works from another routing id too, and a wrong one starts a new session', async () => {
    server = await scope.serve(startServer());
    const a = scope.client();
    const { resume } = (await a.ok({ op: 'hello' })).header;
    const h = (await a.ok({ op: 'make', env_ids: ID })).header.handle;
    a.close();
    const b = scope.client();
    expect((await b.ok({ op: 'hello', resume: 'not-a-secret' })).header.resume).not.toBe(resume);
    expect((await b.request({ op: 'reset', handle: h })).header.error.code).toBe('UNKNOWN_HANDLE');
    // b's connection got a new, empty session from its first hello; resuming the old one ends it.
    expect((await b.ok({ op: 'hello', resume })).header.resume).toBe(resume);
    expect((await b.ok({ op: 'reset', handle: h })).header.n).toBe(1);
    await sleep(10);
    expect(server.stats()).toMatchObject({ clients: 1, handles: 1 });
  });
});

describe('no session state before auth', () => {
  it('10,000 token-less clients leave no session behind', async () => {
    server = await scope.serve(startServer({ authToken: TOKEN }));
    const heapBefore = process.memoryUsage().heapUsed;
    const peers = [];
    for (let i = 0; i < 10_000; i++) peers.push(scope.client());
    const replies = await Promise.all(peers.map((p, i) => p.request(i % 2 ? { op: 'ping' } : { op: 'hello', token: 'wrong' })));
    expect(new Set(replies.map((r) => r.header.error?.code))).toEqual(new Set(['UNAUTHORIZED']));
    expect(server.stats()).toMatchObject({ clients: 0, connections: 0 });
    // One client that keeps trying: still nothing.
    const c = scope.client();
    for (let i = 0; i < 1000; i++) c.request({ op: 'ping' }).catch(() => undefined);
    expect((await c.request({ op: 'stats' })).header.error.code).toBe('UNAUTHORIZED');
    expect(server.stats()).toMatchObject({ clients: 0, connections: 0 });
    expect(server.stats().requests).toBeGreaterThanOrEqual(11_001);
    // Loose: the 10,001 sessions of the old code held ~15 MB; nothing here should grow like that.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('100 token-less DEALERs on a real socket leave no session behind', async () => {
    server = await scope.serve(startSocketServer({ authToken: TOKEN }));
    const peers = Array.from({ length: 100 }, () => socketClient());
    const replies = await Promise.all(peers.map((p) => p.request({ op: 'ping' })));
    expect(replies.every((r) => r.header.error.code === 'UNAUTHORIZED')).toBe(true);
    expect(server.stats()).toMatchObject({ clients: 0, connections: 0 });
  });
});

describe('logs', () => {
  it('routing ids never appear at info level', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const opts: TestServerOptions = { logger: pino({ level: 'info' }, sink) };
    server = await scope.serve(startSocketServer(opts));
    const routingId = 'py-SECRETROUTINGID';
    const c = socketClient(routingId);
    await c.ok({ op: 'hello' });
    await c.ok({ op: 'make', env_ids: ID });
    await c.ok({ op: 'register_dataset', name: 'd' }, tableToIPC(tableFromArrays({ problem: ['p'], answer: ['1'] }), 'stream'));
    await c.ok({ op: 'close' }); // logs "freeing client" at info level
    await scope.close();
    const text = lines.join('');
    expect(text).toMatch(/freeing client/);
    const id = Buffer.from(routingId);
    for (const form of [routingId, 'SECRETROUTINGID', id.toString('hex'), id.toString('base64'), id.toString('base64url')]) expect(text).not.toContain(form);
    expect(text).toMatch(/"session":\d+/);
  });
});
