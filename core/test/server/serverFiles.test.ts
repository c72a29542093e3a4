/**
 * A hostile second tenant (issue 27, finding 1): over the wire a dataset option names a server-side
 * file only under the operator's data dirs (gem-ts serve --data-dir). Client A's private file outside
 * them, a link or `..` out of them, /etc/shadow and a name that is not there all get one and the same
 * DATASET_MISSING, so nothing can be read or probed; a file inside works.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirs } from '../../src/data/dataDirs.ts';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import type { GemServer } from '../../src/server/server.ts';
import { connect, startServer, type WireClient } from './wireClient.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'gem-serverfiles-')));
const allowed = join(root, 'allowed');
const privateDir = join(root, 'client-a');
mkdirSync(join(allowed, 'hub'), { recursive: true });
mkdirSync(privateDir);
const row = (marker: string) => `${JSON.stringify({ problem: marker, answer: '42' })}\n`;
const aPrivate = join(privateDir, 'private.jsonl');
writeFileSync(aPrivate, row('A-private'));
writeFileSync(join(allowed, 'public.jsonl'), row('public'));
writeFileSync(join(allowed, 'hub', 'train.jsonl'), row('hub'));
symlinkSync(aPrivate, join(allowed, 'link.jsonl'));

/** The error a make gets, with the name the client gave blanked out (it is echoed back). */
async function makeError(c: WireClient, options: Record<string, unknown>): Promise<{ code: string; message: string }> {
  const r = await c.request({ op: 'make', env_ids: 'math:GSM8K', options });
  expect(r.header.error, `make with ${JSON.stringify(options)} should fail`).toBeDefined();
  const { code, message } = r.header.error as { code: string; message: string };
  const given = options.dataset;
  return { code, message: typeof given === 'string' ? message.split(given).join('<name>') : message };
}

async function firstProblem(c: WireClient, options: Record<string, unknown>): Promise<string> {
  const made = await c.ok({ op: 'make', env_ids: 'math:GSM8K', options });
  const r = await c.ok({ op: 'reset', handle: made.header.handle, options: { idx: 0 } });
  await c.ok({ op: 'close', handle: made.header.handle });
  return r.header.rows.observation[0] as string;
}

describe('a server with --data-dir', () => {
  let server: GemServer;
  let a: WireClient;
  let b: WireClient;
  beforeAll(async () => {
    const catalog = defaultRegistry.overlay({ dataDirs: DataDirs.of([allowed]), label: 'test catalog' });
    server = await startServer({ catalog });
    a = connect(server);
    b = connect(server);
  });
  afterAll(async () => {
    a.close();
    b.close();
    await server.close();
  });

  it("serves a file inside the allowed dir, and a hub's folder under it", async () => {
    expect(await firstProblem(b, { dataset: join(allowed, 'public.jsonl') })).toContain('public');
    expect(await firstProblem(b, { dataset_name: 'hub', split: 'train' })).toContain('hub');
  });

  it("refuses client A's private file to client B, by path, by a link inside, by `..` and by hub name", async () => {
    await a.ok({ op: 'ping' });
    const tries = [
      { dataset: aPrivate },
      { dataset: join(allowed, 'link.jsonl') },
      { dataset: join(allowed, '..', 'client-a', 'private.jsonl') },
      { dataset_name: '../client-a', split: 'private' },
    ];
    for (const options of tries) expect((await makeError(b, options)).code).toBe('DATASET_MISSING');
  });

  it('gives /etc/shadow and a missing name the same error', async () => {
    const shadow = await makeError(b, { dataset: '/etc/shadow' });
    const missing = await makeError(b, { dataset: join(root, 'no-such-file.jsonl') });
    const unreadableDir = await makeError(b, { dataset: '/root/x.jsonl' });
    expect(shadow).toEqual(missing);
    expect(unreadableDir).toEqual(missing);
    expect(shadow.message).not.toMatch(/EACCES|ENOENT|permission|exist/i);
  });

  it('refuses a bound-table look-alike sent by a client', async () => {
    const r = await b.request({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: { gem_ts_table: 'sha256:00', origin: 'forged' } } });
    expect(r.header.error?.code).toBe('INVALID_OPTIONS');
  });
});

describe('a server without --data-dir', () => {
  it('reads no server-side file for a client, even one that exists', async () => {
    const server = await startServer();
    const c = connect(server);
    try {
      expect((await makeError(c, { dataset: join(allowed, 'public.jsonl') })).code).toBe('DATASET_MISSING');
      // Inline rows still work: the client's own data.
      expect(await firstProblem(c, { dataset: [{ problem: 'inline', answer: '1' }] })).toContain('inline');
    } finally {
      c.close();
      await server.close();
    }
  });
});
