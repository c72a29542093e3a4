// How runs are named in the UI's list: after what a person called the run, not after a fixed file name.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RunCatalog } from '../../src/ui/runCatalog.ts';

const committed = fileURLToPath(new URL('../../../docs/results/benchmark_algorithms.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gem-ui-catalog-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('RunCatalog names', () => {
  it('a benchmark results.json is named after its folder (npm run demo writes runs/demo/results.json)', async () => {
    mkdirSync(join(dir, 'runs/demo'), { recursive: true });
    copyFileSync(committed, join(dir, 'runs/demo/results.json'));
    copyFileSync(committed, join(dir, 'runs/seed-sweep.json'));
    const catalog = new RunCatalog();
    await catalog.add(join(dir, 'runs'));
    expect(catalog.list().map((r) => [r.kind, r.name]).sort()).toEqual([
      ['benchmark', 'demo'],
      ['benchmark', 'seed-sweep'],
    ]);
  });
});
