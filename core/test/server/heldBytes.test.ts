/**
 * Quotas count every byte a session makes the server hold (issue 27, build 2): rows passed inline in
 * make's options and server-side files read for a session count against max_dataset_bytes_per_client
 * and max_dataset_bytes_total like pushed tables; a make past them gets LIMIT_EXCEEDED {limit, value,
 * max} and changes nothing; `stats` shows each kind; closing the handle or the session frees the count.
 */
import { mkdirSync, mkdtempSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { DataDirs } from '../../src/data/dataDirs.ts';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import { packHeader } from '../../src/server/protocol/frames.ts';
import type { GemServer } from '../../src/server/server.ts';
import { startServer, TestScope, type TestServerOptions } from './wireClient.ts';

const KiB = 1024;
const scope = new TestScope();
let server: GemServer | undefined;
async function serve(opts: TestServerOptions): Promise<void> {
  server = await scope.serve(startServer({ ...opts, limits: { memory_headroom_bytes: 0, ...opts.limits } }));
}
const client = () => scope.client();
afterEach(() => scope.close());

/** About `bytes` of math rows, as a client passes them inline. */
function rows(bytes: number, tag = 'q'): Record<string, unknown>[] {
  const n = Math.ceil(bytes / 110);
  return Array.from({ length: n }, (_, i) => ({ problem: `${tag} ${i}: ${'x'.repeat(80)}`, answer: String(i) }));
}

describe('rows given inline in make', () => {
  it('count as dataset bytes; past the quota a make is refused; closing frees them', async () => {
    await serve({ limits: { max_dataset_bytes_per_client: 64 * KiB } });
    const c = client();
    const first = rows(40 * KiB);
    const size = packHeader(first).length;
    const h = (await c.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: first } })).header.handle;
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ dataset_bytes: size, inline_bytes: size, pushed_bytes: 0, file_bytes: 0 });
    expect(server!.stats()).toMatchObject({ dataset_bytes: size, inline_bytes: size });

    // The same again would hold 80 KiB: refused, with the figures, and nothing changed.
    const refused = await c.request({ op: 'make', env_ids: 'math:GSM8K', num_envs: 2, options: { dataset: rows(40 * KiB, 'r') } });
    expect(refused.header.error).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      data: { limit: 'max_dataset_bytes_per_client', value: expect.any(Number), max: 64 * KiB },
    });
    expect(refused.header.error.data.value).toBeGreaterThan(64 * KiB);
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ handles: 1, envs: 1, dataset_bytes: size });

    // Rows per env in vec_options count each.
    const perEnv = await c.request({ op: 'make', env_ids: ['math:GSM8K', 'math:GSM8K'], vec_options: [{ dataset: rows(15 * KiB) }, { dataset: rows(15 * KiB) }] });
    expect(perEnv.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_per_client' } });

    await c.ok({ op: 'close', handle: h });
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ dataset_bytes: 0, inline_bytes: 0 });
    expect(server!.stats()).toMatchObject({ dataset_bytes: 0, inline_bytes: 0 });
    await c.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: rows(40 * KiB, 'r') } });
  });

  it('count with pushed tables, and in the server total; a session that ends frees them', async () => {
    await serve({ limits: { max_dataset_bytes_per_client: 64 * KiB, max_dataset_bytes_total: 100 * KiB } });
    const a = client();
    const b = client();
    const table = tableToIPC(tableFromArrays({ problem: rows(30 * KiB).map((r) => r.problem as string), answer: rows(30 * KiB).map((r) => r.answer as string) }), 'stream');
    await a.ok({ op: 'register_dataset', name: 'mine' }, table);
    const over = await a.request({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: rows(40 * KiB) } });
    expect(over.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_per_client' } });

    await b.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: rows(50 * KiB) } });
    // a's 30 KiB table, b's 50 KiB of rows: 30 more would pass the 100 KiB server total.
    const total = await a.request({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: rows(25 * KiB) } });
    expect(total.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_total', max: 100 * KiB } });

    await b.ok({ op: 'close' });
    expect(server!.stats().inline_bytes).toBe(0);
    await a.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: rows(25 * KiB) } });
    await a.ok({ op: 'close' });
    expect(server!.stats()).toMatchObject({ dataset_bytes: 0, inline_bytes: 0, pushed_bytes: 0 });
  });

  it('a silent session has its rows freed with it', async () => {
    await serve({ limits: { idle_timeout_ms: 300 } });
    const c = client();
    await c.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: rows(10 * KiB) } });
    expect(server!.stats().inline_bytes).toBeGreaterThan(9 * KiB);
    c.close();
    await new Promise((r) => setTimeout(r, 900));
    expect(server!.stats()).toMatchObject({ clients: 0, inline_bytes: 0, dataset_bytes: 0 });
  });
});

describe('files the server reads for a session', () => {
  it('count at their size on disk, each file once per session and once in the total; past the quota a make is refused', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'gem-heldbytes-')));
    const file = join(dir, 'big.jsonl');
    const other = join(dir, 'other.jsonl');
    writeFileSync(file, rows(20 * KiB).map((r) => JSON.stringify(r)).join('\n') + '\n');
    writeFileSync(other, rows(35 * KiB, 'o').map((r) => JSON.stringify(r)).join('\n') + '\n');
    const fileSize = statSync(file).size;
    const catalog = defaultRegistry.overlay({ dataDirs: DataDirs.of([dir]), label: 'test catalog' });
    await serve({ catalog, limits: { max_dataset_bytes_per_client: 50 * KiB } });
    const c = client();
    const h = (await c.ok({ op: 'make', env_ids: 'math:GSM8K', num_envs: 3, options: { dataset: file } })).header.handle;
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ file_bytes: fileSize, dataset_bytes: fileSize });
    expect(server!.stats().file_bytes).toBe(fileSize);
    // The server keeps one copy of a file's rows for every env that reads it: a second handle adds nothing.
    const h2 = (await c.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: file } })).header.handle;
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ handles: 2, file_bytes: fileSize });
    // Another 35 KiB file would hold 55 KiB for this client: refused, and the make is undone.
    const refused = await c.request({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: other } });
    expect(refused.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_dataset_bytes_per_client', max: 50 * KiB } });
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ handles: 2, envs: 4, file_bytes: fileSize });
    // Another client reading the same file: its own count has it, the server total still once.
    const d = client();
    await d.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: file } });
    expect((await d.ok({ op: 'stats' })).header.client.file_bytes).toBe(fileSize);
    expect(server!.stats().file_bytes).toBe(fileSize);
    await c.ok({ op: 'close', handle: h });
    expect((await c.ok({ op: 'stats' })).header.client).toMatchObject({ handles: 1, file_bytes: fileSize });
    await c.ok({ op: 'close', handle: h2 });
    await d.ok({ op: 'close' });
    expect((await c.ok({ op: 'stats' })).header.client.file_bytes).toBe(0);
    expect(server!.stats().file_bytes).toBe(0);
    await c.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: other } });
  });

  it("a dataset folder counts the files of the split its envs read", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'gem-heldbytes-')));
    const folder = join(dir, 'splits');
    mkdirSync(folder);
    writeFileSync(join(folder, 'train.jsonl'), rows(3 * KiB).map((r) => JSON.stringify(r)).join('\n') + '\n');
    writeFileSync(join(folder, 'test.jsonl'), rows(9 * KiB).map((r) => JSON.stringify(r)).join('\n') + '\n');
    const catalog = defaultRegistry.overlay({ dataDirs: DataDirs.of([dir]), label: 'test catalog' });
    await serve({ catalog });
    const c = client();
    await c.ok({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: folder, split: 'train' } });
    expect((await c.ok({ op: 'stats' })).header.client.file_bytes).toBe(statSync(join(folder, 'train.jsonl')).size);
  });
});
