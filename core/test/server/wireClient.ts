/**
 * A minimal protocol v1 client over a zeromq.js DEALER, for the server tests: raw frames in, replies
 * matched by id out. Server→client `env_call` messages go to `onEnvCall` when one is set.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dealer } from 'zeromq';
import { GemServer, type ServerOptions } from '../../src/server/server.ts';
import { packHeader, unpackHeader } from '../../src/server/protocol/frames.ts';

export interface Reply {
  header: Record<string, any>;
  body?: Buffer;
  /** The header frame as it arrived. */
  raw?: Buffer;
}

export function uniqueIpc(): string {
  return `ipc://${join(tmpdir(), `gem-ts-test-${process.pid}-${randomBytes(4).toString('hex')}.sock`)}`;
}

export async function startServer(opts: ServerOptions = {}): Promise<GemServer> {
  const server = new GemServer({ endpoint: uniqueIpc(), ...opts });
  await server.start();
  return server;
}

export class WireClient {
  readonly sock: Dealer;
  private nextId = 1;
  private readonly waiting = new Map<number | null, ((r: Reply) => void)[]>();
  private readonly loop: Promise<void>;
  /** zeromq.js allows one pending send per socket: sends go through this chain. */
  private sending: Promise<unknown> = Promise.resolve();
  onEnvCall?: (header: Record<string, any>) => Promise<Record<string, any>> | Record<string, any>;
  /** Replies with an id nobody waits for (and id-less error replies when nobody waits for null). */
  readonly stray: Reply[] = [];
  /** Header frames that were not msgpack at all (a server bug: every reply must decode). */
  readonly undecodable: Buffer[] = [];

  constructor(endpoint: string, routingId?: string) {
    this.sock = new Dealer({ linger: 0, ...(routingId ? { routingId } : {}) });
    this.sock.connect(endpoint);
    this.loop = this.read();
  }

  private async read(): Promise<void> {
    try {
      for await (const [h, body] of this.sock) {
        let header: Record<string, any>;
        try {
          header = unpackHeader(h) as Record<string, any>;
        } catch {
          this.undecodable.push(h);
          continue;
        }
        if (header.op === 'env_call') {
          // Answered off the read loop, so a slow env never blocks other replies.
          void (async () => {
            const result = this.onEnvCall ? await this.onEnvCall(header) : { ok: false, error: { code: 'NOT_SUPPORTED', message: 'no handler' } };
            await this.send([packHeader({ v: 1, id: header.id, op: 'env_return', ...result })]);
          })();
          continue;
        }
        const list = this.waiting.get(header.id ?? null);
        const reply = { header, body, raw: h };
        if (list && list.length) list.shift()!(reply);
        else this.stray.push(reply);
      }
    } catch {
      // socket closed
    }
  }

  /** Sends raw frames; resolves with the next reply carrying `expectId` (null for id-less errors). */
  sendRaw(frames: (Buffer | Uint8Array)[], expectId: number | null): Promise<Reply> {
    const p = new Promise<Reply>((resolve) => {
      const list = this.waiting.get(expectId) ?? [];
      list.push(resolve);
      this.waiting.set(expectId, list);
    });
    return this.send(frames).then(() => p);
  }

  send(frames: (Buffer | Uint8Array)[]): Promise<void> {
    const next = this.sending.then(() => this.sock.send(frames));
    this.sending = next.catch(() => undefined);
    return next;
  }

  /** Sends a request (v and id filled in) and resolves with its reply. */
  request(fields: Record<string, unknown>, body?: Uint8Array): Promise<Reply> {
    const id = this.nextId++;
    const frames = [packHeader({ v: 1, id, ...fields })];
    if (body) frames.push(Buffer.from(body));
    return this.sendRaw(frames, id);
  }

  /** Like request, but throws unless ok; returns the header. */
  async ok(fields: Record<string, unknown>, body?: Uint8Array): Promise<Reply> {
    const r = await this.request(fields, body);
    if (!r.header.ok) throw new Error(`${fields.op} failed: ${JSON.stringify(r.header.error)}`);
    return r;
  }

  close(): void {
    this.sock.close();
  }
}
