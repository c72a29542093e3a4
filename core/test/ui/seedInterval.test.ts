import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { meanInterval } from '../../ui/src/seedInterval.ts';

type Row = { mean: number; lo: number; hi: number; n: number };
type Seeded = { seeds: Record<string, { algorithms: Record<string, { final: Record<string, number> }> }>; summary: { rows: Record<string, Record<string, Row>> } };

describe('meanInterval', () => {
  it('enumerates every resample: hand-computed cases', () => {
    // [0, 1]: resample means 0, ½, ½, 1.
    expect(meanInterval([0, 1])).toEqual({ mean: 0.5, lo: 0, hi: 1, n: 2 });
    // [0, 0, 1]: 27 resamples; means 0 (8), ⅓ (12), ⅔ (6), 1 (1). The 25% quantile is the 7th
    // smallest (0), the 75% one the 21st (⅔).
    const r = meanInterval([0, 0, 1], 0.5);
    expect(r.lo).toBe(0);
    expect(r.hi).toBeCloseTo(2 / 3, 12);
    expect(meanInterval([3, 3, 3, 3, 3])).toEqual({ mean: 3, lo: 3, hi: 3, n: 5 });
  });

  it('gives the intervals the Python report committed for every task and algorithm', () => {
    const results = JSON.parse(readFileSync(join(__dirname, '../../../docs/results/benchmark_algorithms.json'), 'utf8')) as { tasks: Record<string, Seeded> };
    let checked = 0;
    for (const task of Object.values(results.tasks)) {
      const algos = Object.keys(Object.values(task.seeds)[0].algorithms);
      for (const algo of algos) {
        for (const metric of ['success', 'return']) {
          const want = task.summary.rows[algo][`final_${metric}`];
          const got = meanInterval(Object.values(task.seeds).map((s) => s.algorithms[algo].final[metric]));
          expect(got.n).toBe(want.n);
          for (const k of ['mean', 'lo', 'hi'] as const) expect(got[k]).toBeCloseTo(want[k], 9);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3 * 4 * 2);
  });

  it('draws a fixed set of resamples past six seeds', () => {
    const v = [0.1, 0.9, 0.4, 0.3, 0.8, 0.2, 0.7, 0.5];
    const a = meanInterval(v);
    expect(meanInterval(v)).toEqual(a);
    expect(a.lo).toBeLessThan(a.mean);
    expect(a.hi).toBeGreaterThan(a.mean);
    expect(a.lo).toBeGreaterThanOrEqual(0.1);
    expect(a.hi).toBeLessThanOrEqual(0.9);
  });

  it('refuses what it cannot bootstrap', () => {
    expect(() => meanInterval([])).toThrow(/no values/);
    expect(() => meanInterval([1], 1)).toThrow(/level/);
  });
});
