/**
 * The server over a real zeromq ROUTER, end to end: the socket test the in-memory ones stand on.
 * Routing ids name sessions, Arrow bodies travel as their own frame, an oversized message gets its
 * error reply, and closing removes the ipc socket file.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import { GemServer } from '../../src/server/server.ts';
import { ZmqRouterTransport } from '../../src/server/zmqRouterTransport.ts';
import { twoClientConversation } from './twoClientConversation.ts';
import { startSocketServer, uniqueIpc, WireClient } from './wireClient.ts';


let server: GemServer | undefined;
const clients: WireClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

function client(routingId?: string): WireClient {
  const c = new WireClient(server!.endpoint, routingId);
  clients.push(c);
  return c;
}

describe('server on a zeromq ROUTER', () => {
  it('serves make, reset and an Arrow step; sessions follow routing ids; closing removes the socket file', async () => {
    const endpoint = uniqueIpc();
    server = await startSocketServer({ endpoint, limits: { inline_max_rows: 1, max_message_bytes: 64 * 1024 } });
    expect(server.endpoint).toBe(endpoint);
    expect(existsSync(endpoint.slice('ipc://'.length))).toBe(true);

    // Another routing id is another session: alice's handle is not bob's.
    await twoClientConversation(client('alice'), () => client('bob'));

    await server.close();
    server = undefined;
    expect(existsSync(endpoint.slice('ipc://'.length))).toBe(false);
  });

  it('a bind that fails (the port is taken) may be retried; a started server refuses a second start', async () => {
    server = await startSocketServer({ endpoint: 'tcp://127.0.0.1:0' });
    await expect(server.start()).rejects.toThrow(/already started/);
    const taken = server.endpoint;
    const blocked = new GemServer({ catalog: defaultRegistry, transport: new ZmqRouterTransport({ endpoint: taken, maxMessageBytes: 1024 }) });
    await expect(blocked.start()).rejects.toThrow(/in use/i);
    await server.close();
    server = blocked;
    // libzmq frees the port in its I/O thread after close returns: retrying is what a user does.
    for (let attempt = 1; ; attempt++) {
      try {
        expect(await blocked.start()).toBe(taken);
        break;
      } catch (e) {
        if (attempt >= 40 || !/in use/i.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    expect((await client().ok({ op: 'ping' })).header.ok).toBe(true);
  });
});
