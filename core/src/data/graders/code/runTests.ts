/**
 * Runs a program against stdin/stdout tests in the sandbox, several at a time, stopping at the first
 * failure. A test passes when the program exits 0 and its stdout equals the expected output after
 * stripping whitespace at both ends (GEM's rule, with Python's whitespace set). Nothing the program
 * does can throw here: crashes, timeouts, memory or output blow-ups are failures.
 *
 * Output limits never decide a verdict silently: each run may keep as much stdout as its expected
 * output could need (stdoutBudget), so a correct program with a large output is compared whole, and
 * a program that writes past that budget is stopped and fails with the reason said.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_LIMITS, MAX_STDOUT_BYTES, type RunOptions, type SandboxResult } from '../../../sandbox/sandbox.ts';
import { pyStrip } from '../qa/pythonText.ts';
import type { TestCase } from './testCases.ts';

export type RunProgram = (opts: RunOptions) => Promise<SandboxResult>;

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
  run: RunProgram;
  timeoutMs: number;
  memoryMb: number;
  /** Tests in flight at once (GEM's max_workers). */
  concurrency: number;
  /** Runs `run` takes at once without queueing them (a sandbox's pool size); default the machine's parallelism. */
  parallel?: number;
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

async function runOne(code: string, test: TestCase, o: TestRunOptions): Promise<SandboxResult> {
  const budget = stdoutBudget(test.output);
  const run = (program: string) =>
    o.run({ code: program, stdin: test.input, timeoutMs: o.timeoutMs, memoryMb: o.memoryMb, stdoutKeepBytes: budget, stdoutKillBytes: budget });
  const first = await run(code);
  if (first.exitCode !== 0 && !first.killedReason && first.stderr.includes('is not defined')) return run(`${COMMON_IMPORTS}\n${code}`);
  return first;
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

export async function runTests(code: string, tests: readonly TestCase[], o: TestRunOptions): Promise<TestRunSummary> {
  let next = 0;
  let passed = 0;
  let failure: string | undefined;
  const worker = async () => {
    while (failure === undefined && next < tests.length) {
      const test = tests[next++];
      const result = await runOne(code, test, o);
      if (passes(result, test.output)) passed++;
      else failure ??= describeFailure(result, test.output);
    }
  };
  // More workers than the sandbox has processes would only queue tests that may no longer be needed
  // once one fails, so stay within what it runs at once.
  const workers = Math.max(1, Math.min(o.concurrency, tests.length, o.parallel ?? availableParallelism()));
  await Promise.all(Array.from({ length: workers }, worker));
  return { passed, total: tests.length, failure };
}
