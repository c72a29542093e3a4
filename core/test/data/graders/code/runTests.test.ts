import { describe, expect, it } from 'vitest';
import { runTests, stdoutBudget } from '../../../../src/data/graders/code/runTests.ts';
import { DEFAULT_LIMITS, MAX_STDOUT_BYTES, type RunOptions, type SandboxResult } from '../../../../src/sandbox/sandbox.ts';

const ok = (stdout: string): SandboxResult => ({ stdout, stderr: '', exitCode: 0, timedOut: false, truncated: false, wallMs: 1 });

describe('runTests', () => {
  it('sizes the stdout budget from the expected output, within the sandbox default and ceiling', () => {
    expect(stdoutBudget('')).toBe(DEFAULT_LIMITS.maxOutputBytes);
    expect(stdoutBudget('3\n')).toBe(4 + 64 * 1024);
    expect(stdoutBudget('x'.repeat(1_000_000))).toBe(2_000_000 + 64 * 1024);
    expect(stdoutBudget('é'.repeat(100_000))).toBe(400_000 + 64 * 1024);
    expect(stdoutBudget('x'.repeat(40_000_000))).toBe(MAX_STDOUT_BYTES);
  });

  it('asks the runner to keep and stop at that budget for each test', async () => {
    const seen: RunOptions[] = [];
    const big = 'y'.repeat(300_000);
    const summary = await runTests('code', [{ input: '', output: big }], {
      run: async (o) => (seen.push(o), ok(big)),
      timeoutMs: 1000,
      memoryMb: 0,
      concurrency: 1,
    });
    expect(summary).toEqual({ passed: 1, total: 1, failure: undefined });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ stdoutKeepBytes: stdoutBudget(big), stdoutKillBytes: stdoutBudget(big) });
  });

  it('keeps at most `parallel` tests in flight when told how many runs the runner takes at once', async () => {
    const tests = Array.from({ length: 6 }, (_, i) => ({ input: `${i}`, output: `${i}` }));
    let inFlight = 0;
    let peak = 0;
    const run = async (o: RunOptions) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return ok(o.stdin!);
    };
    expect(await runTests('c', tests, { run, timeoutMs: 1000, memoryMb: 0, concurrency: 5, parallel: 3 })).toMatchObject({ passed: 6, total: 6 });
    expect(peak).toBe(3);
    peak = 0;
    await runTests('c', tests, { run, timeoutMs: 1000, memoryMb: 0, concurrency: 2, parallel: 8 });
    expect(peak).toBe(2);
  });

  it("compares with Python's strip(): U+0085 and U+001C at the ends go, U+FEFF stays", async () => {
    const grade = async (stdout: string, expected: string) =>
      (await runTests('c', [{ input: '', output: expected }], { run: async () => ok(stdout), timeoutMs: 1, memoryMb: 0, concurrency: 1 })).passed;
    expect(await grade('7\u0085\u001c\n', '7')).toBe(1);
    expect(await grade('\uFEFF7', '7')).toBe(0);
    expect(await grade(' 7 \n', '7\n\n')).toBe(1);
  });
});
