import { describe, expect, it } from 'vitest';
import { runTests, stdoutBudget } from '../../../../src/data/graders/code/runTests.ts';
import { DEFAULT_LIMITS, MAX_STDOUT_BYTES, type RunEachOptions, type SandboxResult } from '../../../../src/sandbox/sandbox.ts';

const ok = (stdout: string): SandboxResult => ({ stdout, stderr: '', exitCode: 0, timedOut: false, truncated: false, wallMs: 1 });
const crashed = (stderr: string): SandboxResult => ({ stdout: '', stderr, exitCode: 1, timedOut: false, truncated: false, wallMs: 1 });
/** A stand-in sandbox that echoes each input, and records its calls. */
function echo(calls: RunEachOptions[]) {
  return async (o: RunEachOptions) => (calls.push(o), o.inputs.map((i) => ok(i.stdin!)));
}

describe('runTests', () => {
  it('sizes the stdout budget from the expected output, within the sandbox default and ceiling', () => {
    expect(stdoutBudget('')).toBe(DEFAULT_LIMITS.maxOutputBytes);
    expect(stdoutBudget('3\n')).toBe(4 + 64 * 1024);
    expect(stdoutBudget('x'.repeat(1_000_000))).toBe(2_000_000 + 64 * 1024);
    expect(stdoutBudget('é'.repeat(100_000))).toBe(400_000 + 64 * 1024);
    expect(stdoutBudget('x'.repeat(40_000_000))).toBe(MAX_STDOUT_BYTES);
  });

  it('hands all the tests to the sandbox in one call: budgets per test, concurrency as parallel, stop on failure', async () => {
    const calls: RunEachOptions[] = [];
    const big = 'y'.repeat(300_000);
    const tests = [{ input: 'a', output: 'a' }, { input: 'b', output: big }].map((t, i) => (i === 1 ? { input: big, output: big } : t));
    const summary = await runTests('code', tests, { run: echo(calls), timeoutMs: 1000, memoryMb: 64, concurrency: 5 });
    expect(summary).toEqual({ passed: 2, total: 2, failure: undefined });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ code: 'code', parallel: 2, stopOnFailure: true, timeoutMs: 1000, memoryMb: 64 });
    expect(calls[0].inputs[0]).toEqual({ stdin: big, stdoutKeepBytes: stdoutBudget(big), stdoutKillBytes: stdoutBudget(big) });
  });

  it('runs the longest inputs first (a reply waits for its slowest test), ties in their given order', async () => {
    const calls: RunEachOptions[] = [];
    const tests = ['bb', 'a', 'cccc', 'dd', 'e'].map((s) => ({ input: s, output: s }));
    await runTests('c', tests, { run: echo(calls), timeoutMs: 1000, memoryMb: 0, concurrency: 3 });
    expect(calls[0].inputs.map((i) => i.stdin)).toEqual(['cccc', 'bb', 'dd', 'a', 'e']);
    expect(calls[0].parallel).toBe(3);
  });

  it('names the first failure in run order and counts every test that passed', async () => {
    const tests = ['1', '2', '3', '4'].map((s) => ({ input: s, output: s }));
    const run = async (o: RunEachOptions) => o.inputs.map((i) => ok(i.stdin === '2' ? 'wrong' : i.stdin!));
    expect(await runTests('c', tests, { run, timeoutMs: 1000, memoryMb: 0, concurrency: 4 })).toEqual({ passed: 3, total: 4, failure: 'wrong output' });
  });

  it("retries a test that hit a NameError with GEM's common imports, then runs the tests the sandbox did not start", async () => {
    const calls: RunEachOptions[] = [];
    const tests = ['33', '22', '1'].map((s) => ({ input: s, output: s }));
    const run = async (o: RunEachOptions) => {
      calls.push(o);
      if (o.code.startsWith('import sys, os, math')) return o.inputs.map((i) => ok(i.stdin!));
      // The sandbox stopped after the second test failed on its own.
      return o.inputs.slice(0, 2).map((i, k) => (k === 1 ? crashed("NameError: name 'sqrt' is not defined") : ok(i.stdin!)));
    };
    expect(await runTests('c', tests, { run, timeoutMs: 1000, memoryMb: 0, concurrency: 2 })).toEqual({ passed: 3, total: 3, failure: undefined });
    expect(calls.map((c) => [c.code.startsWith('import sys') ? 'imports' : 'plain', c.inputs.map((i) => i.stdin)])).toEqual([
      ['plain', ['33', '22', '1']],
      ['imports', ['22']],
      ['plain', ['1']],
    ]);
  });

  it('stops at a failure the sandbox stopped at, without another call', async () => {
    const calls: RunEachOptions[] = [];
    const run = async (o: RunEachOptions) => (calls.push(o), [crashed('ZeroDivisionError: division by zero')]);
    const tests = ['1', '2', '3'].map((s) => ({ input: s, output: s }));
    expect(await runTests('c', tests, { run, timeoutMs: 1000, memoryMb: 0, concurrency: 5 })).toEqual({ passed: 0, total: 3, failure: 'exit code 1' });
    expect(calls).toHaveLength(1);
  });

  it("compares with Python's strip(): U+0085 and U+001C at the ends go, U+FEFF stays", async () => {
    const grade = async (stdout: string, expected: string) =>
      (await runTests('c', [{ input: '', output: expected }], { run: async () => [ok(stdout)], timeoutMs: 1, memoryMb: 0, concurrency: 1 })).passed;
    expect(await grade('7\u0085\u001c\n', '7')).toBe(1);
    expect(await grade('\uFEFF7', '7')).toBe(0);
    expect(await grade(' 7 \n', '7\n\n')).toBe(1);
  });
});
