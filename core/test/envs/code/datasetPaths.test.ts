/**
 * Every dataset path reaches the code envs, which run in worker threads inside a vector env: rows
 * given directly, a JSONL file, an Arrow IPC file, and a registered (pushed) table. Before, a pushed
 * table never reached a worker-thread env (DATASET_MISSING at reset).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Table, Utf8, tableToIPC, vectorFromArray } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetRegistry } from '../../../src/data/datasetRegistry.ts';
import { defaultRegistry, makeVec } from '../../../src/index.ts';
import { bwrapWorks } from '../../sandbox/sandboxSupport.ts';

const rows = [
  { problem: 'Print a + b.', tests: JSON.stringify({ inputs: ['1 2\n', '10 -3\n'], outputs: ['3\n', '7\n'] }) },
  { problem: 'Print 1..n.', tests: JSON.stringify({ inputs: ['30000\n'], outputs: [`${Array.from({ length: 30000 }, (_, i) => i + 1).join('\n')}\n`] }) },
];
const SOLUTIONS = [
  '```python\na, b = map(int, input().split())\nprint(a + b)\n```',
  '```python\nimport atexit, sys\nout = []\natexit.register(lambda: sys.stdout.write("\\n".join(out) + "\\n"))\nout.extend(str(i) for i in range(1, int(input()) + 1))\n```',
];

const dir = mkdtempSync(join(tmpdir(), 'gem-code-paths-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!bwrapWorks())('code envs in worker threads read every dataset path', () => {
  const datasets = new DatasetRegistry();
  datasets.register('pushed-code', rows);
  const overlay = defaultRegistry.overlay({ datasets });
  const jsonl = join(dir, 'code.jsonl');
  writeFileSync(jsonl, rows.map((r) => JSON.stringify(r)).join('\n'));
  const arrow = join(dir, 'code.arrow');
  writeFileSync(arrow, tableToIPC(new Table({ problem: vectorFromArray(rows.map((r) => r.problem), new Utf8()), tests: vectorFromArray(rows.map((r) => r.tests), new Utf8()) }), 'file'));
  const sources: Record<string, string | object[]> = { rows, jsonl, arrow, registered: 'pushed-code' };

  it.each(Object.keys(sources))('%s', async (name) => {
    const vec = makeVec('code:CodeContest', { numEnvs: 2, workers: 1, mode: 'pool', options: { dataset: sources[name] as never, eval: true, timeout: 10 }, registry: overlay });
    try {
      const reset = await vec.reset({ options: [{ idx: 0 }, { idx: 1 }] });
      expect(reset.observations).toEqual(['Print a + b.', 'Print 1..n.']);
      const r = await vec.step(SOLUTIONS);
      expect([...r.rewards]).toEqual([1, 1]);
    } finally {
      await vec.close();
    }
  });
});
