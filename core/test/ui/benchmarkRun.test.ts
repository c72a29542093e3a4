import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { looksLikeBenchmark, parseBenchmark } from '../../src/ui/benchmarkRun.ts';
import { committedBenchmarkCurves } from './sampleRuns.ts';

const committed = fileURLToPath(new URL('../../../docs/results/benchmark_algorithms.json', import.meta.url));

describe('benchmark results', () => {
  it('reads the seeded layout the benchmark writes: one curve per algorithm and seed', () => {
    const raw = JSON.parse(readFileSync(committed, 'utf8'));
    expect(looksLikeBenchmark(raw)).toBe(true);
    const run = parseBenchmark(raw);
    const want = committedBenchmarkCurves();
    expect(run.tasks.map((t) => t.name)).toEqual(want.tasks);
    for (const task of run.tasks) expect(task.curves).toHaveLength(want.curves[task.name]);
    expect(run.tasks.some((t) => t.curves.length > 0)).toBe(true);
    const withCurves = run.tasks.find((t) => t.curves.length)!;
    expect(new Set(withCurves.curves.map((c) => c.seed)).size).toBeGreaterThan(1);
    expect(withCurves.baselines.map((b) => b.label)).toContain('warm start (seed 0)');
  });

  it('still reads the flat layout of earlier results', () => {
    const run = parseBenchmark({
      tasks: { game: { env_id: 'g', warm_start: { success: 0.3 }, algorithms: { rebn: { curve: [{ iter: 0, success: 0.3 }, { iter: 10, success: 0.5 }] } } } },
    });
    expect(run.tasks[0].curves).toEqual([{ algorithm: 'rebn', points: [{ iter: 0, success: 0.3 }, { iter: 10, success: 0.5 }] }]);
    expect(run.tasks[0].baselines).toEqual([{ label: 'warm start', values: { success: 0.3 } }]);
  });
});
