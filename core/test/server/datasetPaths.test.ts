/**
 * Every way of giving a task env its data reaches every env family through the server — a table
 * pushed and named by the dataset option, pushed under the env's own id, published under `shared/`,
 * rows inline in the make request, a file path — including code envs, which live in worker threads
 * that never see the server's registries (the rows travel with the env's options). The file path is
 * under the server's data dir (gem-ts serve --data-dir); serverFiles.test.ts covers paths outside.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { DataDirs } from '../../src/data/dataDirs.ts';
import { defaultRegistry } from '../../src/envs/defaultRegistry.ts';
import type { GemServer } from '../../src/server/server.ts';
import { connect, startServer, type WireClient } from './wireClient.ts';

interface Family {
  id: string;
  question: string;
  answer: string;
  /** A reply that scores 1 on the row made by rowFor. */
  correct: string;
  gold: string;
}

const SUM_TESTS = JSON.stringify({ inputs: ['1 2\n', '5 5\n'], outputs: ['3\n', '10\n'] });
const FAMILIES: Family[] = [
  { id: 'math:GSM8K', question: 'problem', answer: 'answer', gold: '42', correct: '\\boxed{42}' },
  { id: 'eval:MATH500', question: 'problem', answer: 'answer', gold: '42', correct: '\\boxed{42}' },
  { id: 'qa:NaturalQuestions', question: 'problem', answer: 'answer', gold: 'Canberra', correct: '<answer>Canberra</answer>' },
  { id: 'logic:RuleTaker-d0', question: 'question', answer: 'answer', gold: 'True', correct: '\\boxed{True}' },
  { id: 'code:CodeContest', question: 'problem', answer: 'tests', gold: SUM_TESTS, correct: '```python\na, b = map(int, input().split())\nprint(a + b)\n```' },
];

const rowFor = (f: Family, marker: string) => ({ [f.question]: `${marker} ${f.id}`, [f.answer]: f.gold });
const arrow = (f: Family, marker: string) => {
  const row = rowFor(f, marker);
  return tableToIPC(tableFromArrays({ [f.question]: [row[f.question]], [f.answer]: [row[f.answer]] }), 'stream');
};

const dir = mkdtempSync(join(tmpdir(), 'gem-paths-'));
let server: GemServer;
let c: WireClient;
beforeAll(async () => {
  server = await startServer({ catalog: defaultRegistry.overlay({ dataDirs: DataDirs.of([dir]) }) });
  c = connect(server);
});
afterAll(async () => {
  c.close();
  await server.close();
});

/** Makes the env, checks the first problem is ours, and that the right answer scores 1. */
async function check(f: Family, options: Record<string, unknown>, marker: string): Promise<void> {
  const made = await c.request({ op: 'make', env_ids: f.id, options });
  expect(made.header.error).toBeUndefined();
  const h = made.header.handle;
  // Code envs are cpuBound: they run in a worker thread, which is the point of testing them here.
  if (f.id.startsWith('code:')) expect(made.header.repr[0]).toMatch(/in worker \d+/);
  const r = await c.ok({ op: 'reset', handle: h, options: { idx: 0 } });
  expect(r.header.rows.observation[0]).toContain(`${marker} ${f.id}`);
  const s = await c.ok({ op: 'step', handle: h, rows: { env_index: [0], action: [f.correct] } });
  expect(s.header.rows.reward[0]).toBe(1);
  await c.ok({ op: 'close', handle: h });
}

describe.each(FAMILIES)('$id gets its data by every path', (f) => {
  it('a pushed table named by the dataset option', { timeout: 60_000 }, async () => {
    await c.ok({ op: 'register_dataset', name: `pushed/${f.id}` }, arrow(f, 'pushed'));
    await check(f, { dataset: `pushed/${f.id}` }, 'pushed');
  });

  it("a table pushed under the env's own id, and one published under shared/", { timeout: 60_000 }, async () => {
    await c.ok({ op: 'register_dataset', name: f.id }, arrow(f, 'by-id'));
    await check(f, {}, 'by-id');
    const publisher = connect(server);
    await publisher.ok({ op: 'register_dataset', name: `shared/${f.id}` }, arrow(f, 'shared'));
    await check(f, { dataset: `shared/${f.id}` }, 'shared');
    publisher.close();
  });

  it('rows inline in the make request, and a file path', { timeout: 60_000 }, async () => {
    await check(f, { dataset: [rowFor(f, 'inline')] }, 'inline');
    const file = join(dir, `${f.id.replace(':', '_')}.jsonl`);
    writeFileSync(file, `${JSON.stringify(rowFor(f, 'file'))}\n`);
    await check(f, { dataset: file }, 'file');
  });
});
