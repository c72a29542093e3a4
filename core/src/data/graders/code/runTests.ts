/**
 * Runs a program against stdin/stdout tests in the sandbox, several at a time, stopping at the first
 * failure. A test passes when the program exits 0 and its stdout equals the expected output after
 * stripping whitespace at both ends (GEM's rule, with Python's whitespace set). Nothing the program
 * does can throw here: crashes, timeouts, memory or output blow-ups are failures.
 *
 * All of a reply's tests go to the sandbox as one runEach call: one request and one sandbox set-up,
 * each test still a process of its own. The expected outputs stay here: the sandbox stops at a test
 * that crashed or was stopped, and the outputs are compared when the call returns.
 *
 * Output limits never decide a verdict silently: each run may keep as much stdout as its expected
 * output could need (stdoutBudget), so a correct program with a large output is compared whole, and
 * a program that writes past that budget is stopped and fails with the reason said.
 */
import { DEFAULT_LIMITS, MAX_STDOUT_BYTES, type EachInput, type RunEachOptions, type SandboxResult } from '../../../sandbox/sandbox.ts';
import { pyStrip } from '../qa/pythonText.ts';
import type { TestCase } from './testCases.ts';

export type RunEach = (opts: RunEachOptions) => Promise<SandboxResult[]>;

/** GEM retries a program that failed with a NameError once with these imports in front. */
const COMMON_IMPORTS = [
  'import sys, os, math, re, string, random, heapq, bisect, itertools, functools, collections, operator, fractions, decimal, statistics',
  'from math import *',
  'from collections import *',
  'from itertools import *',
  'from functools import *',
  'from heapq import *',
  'from bisect import *',
  'from typing import *',
].join('\n');

export interface TestRunOptions {
  run: RunEach;
  timeoutMs: number;
  memoryMb: number;
  /** Tests in flight at once (GEM's max_workers). */
  concurrency: number;
}

export interface TestRunSummary {
  passed: number;
  total: number;
  /** Why the first failing test failed, for info. */
  failure?: string;
}

/**
 * The stdout a run may write for a test whose expected output is `expected`: twice its UTF-8 size
 * plus 64 KiB (room for trailing whitespace and other output that still strips to the answer), never
 * less than the sandbox's default, never more than the sandbox's ceiling. Beyond that the output
 * cannot be right, so the run is stopped there instead of being cut and compared (the budget is both
 * what is kept and where the run stops, so no kept stdout is ever a cut one).
 */
export function stdoutBudget(expected: string): number {
  const need = 2 * Buffer.byteLength(expected) + 64 * 1024;
  return Math.min(MAX_STDOUT_BYTES, Math.max(DEFAULT_LIMITS.maxOutputBytes, need));
}

function passes(r: SandboxResult, expected: string): boolean {
  return r.exitCode === 0 && !r.killedReason && pyStrip(r.stdout) === pyStrip(expected);
}

function inputFor(test: TestCase): EachInput {
  const budget = stdoutBudget(test.output);
  return { stdin: test.input, stdoutKeepBytes: budget, stdoutKillBytes: budget };
}

function missingName(r: SandboxResult): boolean {
  return r.exitCode !== 0 && !r.killedReason && r.stderr.includes('is not defined');
}

function describeFailure(r: SandboxResult, expected: string): string {
  if (r.killedReason === 'output_limit') {
    const what = r.flooded === 'stderr' ? 'stderr past its cap' : `more than ${stdoutBudget(expected)} bytes to stdout`;
    return `output_limit: the program wrote ${what} (the expected output is ${Buffer.byteLength(expected)} bytes) and was stopped`;
  }
  if (r.killedReason) return r.killedReason;
  if (r.exitCode !== 0) return `exit code ${r.exitCode}`;
  return 'wrong output';
}

/**
 * The tests, longest input first: a reply waits for its slowest test, and the sandbox starts them
 * one after another, so the one likely to run longest starts first. Every test must pass either way;
 * only which failure is named first may differ.
 */
function longestFirst(tests: readonly TestCase[]): TestCase[] {
  return tests
    .map((test, i) => ({ test, i, size: Buffer.byteLength(test.input) }))
    .sort((a, b) => b.size - a.size || a.i - b.i)
    .map(({ test }) => test);
}

export async function runTests(code: string, given: readonly TestCase[], o: TestRunOptions): Promise<TestRunSummary> {
  const limits = { timeoutMs: o.timeoutMs, memoryMb: o.memoryMb };
  const tests = longestFirst(given);
  let passed = 0;
  let failure: string | undefined;
  let at = 0;
  // Each call runs the tests not yet run; it stops early only at a test that failed on its own, and
  // a NameError is retried with the common imports: if that passes, the remaining tests go on.
  while (failure === undefined && at < tests.length) {
    const rest = tests.slice(at);
    const results = await o.run({ code, inputs: rest.map(inputFor), parallel: Math.min(o.concurrency, rest.length), stopOnFailure: true, ...limits });
    for (const [i, first] of results.entries()) {
      const test = rest[i];
      const result = missingName(first) ? (await o.run({ code: `${COMMON_IMPORTS}\n${code}`, inputs: [inputFor(test)], ...limits }))[0] : first;
      if (passes(result, test.output)) passed++;
      else failure ??= describeFailure(result, test.output);
    }
    at += Math.max(1, results.length);
  }
  return { passed, total: tests.length, failure };
}
