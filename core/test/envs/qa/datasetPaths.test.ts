/**
 * Every dataset path reaches the QA envs with its gold column's type intact, and the typed gold is
 * graded by meaning: rows given directly, a JSONL file, an Arrow IPC file (float64, bool and list
 * columns, as pyarrow and HF `datasets` write them), a registered (pushed) table, and a vector env.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bool, Float64, Field, List, Table, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetRegistry } from '../../../src/data/datasetRegistry.ts';
import { defaultRegistry, make, makeVec } from '../../../src/index.ts';

const rows = [
  { question: 'Boiling point of water in C?', answer: 100.0, flag: true, roots: [2.0, -2.0] },
  { question: 'Half of five?', answer: 2.5, flag: false, roots: [0.5] },
];
/** [row, column, reply, reward] */
const CHECKS: Array<[number, string, string, number]> = [
  [0, 'answer', '100', 1],
  [0, 'answer', '100.0', 1],
  [0, 'answer', '1000', 0],
  [1, 'answer', '2.5', 1],
  [1, 'answer', '25', 0],
  [0, 'flag', 'yes', 1],
  [1, 'flag', 'False', 1],
  [1, 'flag', 'true', 0],
  [0, 'roots', '-2', 1],
  [1, 'roots', '0.50', 1],
];

const dir = mkdtempSync(join(tmpdir(), 'gem-qa-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function arrowFile(): string {
  const table = new Table({
    question: vectorFromArray(rows.map((r) => r.question), new Utf8()),
    answer: vectorFromArray(rows.map((r) => r.answer), new Float64()),
    flag: vectorFromArray(rows.map((r) => r.flag), new Bool()),
    roots: vectorFromArray(rows.map((r) => r.roots), new List(new Field('item', new Float64(), true))),
  });
  const path = join(dir, 'typed.arrow');
  writeFileSync(path, tableToIPC(table, 'file'));
  return path;
}

function jsonlFile(): string {
  const path = join(dir, 'typed.jsonl');
  // Written as Python's json.dumps writes floats: 100.0 stays "100.0" in the file.
  writeFileSync(path, `${JSON.stringify(rows[0]).replace('"answer":100', '"answer":100.0')}\n${JSON.stringify(rows[1])}\n`);
  return path;
}

describe('QA envs read typed golds from every dataset path', () => {
  const datasets = new DatasetRegistry();
  datasets.register('typed-golds', rows);
  const overlay = defaultRegistry.overlay({ datasets });
  const paths: Record<string, (answerKey: string) => ReturnType<typeof make>> = {
    rows: (answer_key) => make('qa:HotpotQA', { dataset: rows, answer_key }),
    jsonl: (answer_key) => make('qa:HotpotQA', { dataset: jsonlFile(), answer_key }),
    arrow: (answer_key) => make('qa:HotpotQA', { dataset: arrowFile(), answer_key }),
    registered: (answer_key) => overlay.make('qa:HotpotQA', { dataset: 'typed-golds', answer_key }),
  };

  it.each(Object.keys(paths))('%s', async (path) => {
    let graded = 0;
    for (const [idx, column, reply, reward] of CHECKS) {
      const env = paths[path](column);
      await env.reset({ options: { idx } });
      expect((await env.step(`<answer>${reply}</answer>`)).reward, `${column} ${reply}`).toBe(reward);
      graded++;
    }
    expect(graded).toBe(CHECKS.length);
  });

  it('a vector env over a registered table', async () => {
    const vec = makeVec('qa:HotpotQA', { numEnvs: 2, options: { dataset: 'typed-golds', eval: true }, registry: overlay });
    try {
      await vec.reset({ options: [{ idx: 0 }, { idx: 1 }] });
      const r = await vec.step(['<answer>100</answer>', '<answer>2.50</answer>']);
      expect([...r.rewards]).toEqual([1, 1]);
    } finally {
      await vec.close();
    }
  });
});
