// npm test's scheduler (scripts/suites.mjs): the Ray suite runs after every other heavy suite, alone
// among them, while the linters fill the core it leaves free; one lane runs everything in turn.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error -- a plain .mjs script, no declarations
import { runSuites } from '../../../scripts/suites.mjs';

let dir: string;
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** A suite whose one step notes when it starts and ends (ms since the epoch) in `times`. */
function suite(name: string, times: string, ms: number, extra: Record<string, boolean> = {}) {
  const code = `const f=require('fs');f.appendFileSync(${JSON.stringify(times)},'${name} start '+Date.now()+'\\n');setTimeout(()=>f.appendFileSync(${JSON.stringify(times)},'${name} end '+Date.now()+'\\n'),${ms})`;
  return { name, heading: name, steps: [[process.execPath, ['-e', code]]], ...extra };
}

async function schedule(jobs: number): Promise<Record<string, { start: number; end: number }>> {
  dir = mkdtempSync(join(tmpdir(), 'gem-ts-suites-'));
  const times = join(dir, 'times.txt');
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const results = await runSuites(
    [suite('heavy1', times, 400), suite('lint1', times, 200, { light: true }), suite('heavy2', times, 400), suite('ray', times, 2000, { alone: true }), suite('lint2', times, 200, { light: true })],
    { jobs, logDir: dir },
  );
  expect(results.map((r: { status: number }) => r.status)).toEqual([0, 0, 0, 0, 0]);
  const out: Record<string, { start: number; end: number }> = {};
  for (const line of readFileSync(times, 'utf8').trim().split('\n')) {
    const [name, what, at] = line.split(' ');
    out[name] = { ...out[name], [what]: Number(at) };
  }
  return out;
}

describe('runSuites', () => {
  it('runs the linters beside the alone suite, after the heavy suites', async () => {
    const t = await schedule(2);
    const heavyEnd = Math.max(t.heavy1.end, t.heavy2.end);
    expect(t.heavy1.start).toBeLessThan(t.heavy2.end); // two heavy suites at a time
    expect(t.ray.start).toBeGreaterThanOrEqual(heavyEnd);
    for (const l of [t.lint1, t.lint2]) {
      expect(l.start).toBeGreaterThanOrEqual(heavyEnd);
      expect(l.start).toBeLessThan(t.ray.end); // beside the alone suite, not after it
    }
    expect(t.lint2.start).toBeGreaterThanOrEqual(t.lint1.end); // one lane beside it
  }, 30_000);

  it('with one lane, runs every suite in turn', async () => {
    const t = await schedule(1);
    const spans = Object.values(t).sort((a, b) => a.start - b.start);
    for (let k = 1; k < spans.length; k++) expect(spans[k].start).toBeGreaterThanOrEqual(spans[k - 1].end);
    expect(t.ray.start).toBeGreaterThanOrEqual(Math.max(t.heavy1.end, t.heavy2.end, t.lint1.end, t.lint2.end));
  }, 30_000);
});
