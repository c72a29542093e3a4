import { afterAll, describe, expect, it } from 'vitest';
import { TERMINAL_STATE, checkEnv, listEnvs, make } from '../../../src/index.ts';
import { CodeEnv, CodeOptions } from '../../../src/envs/code/codeEnv.ts';
import { lastCodeBlock, parseTestCases, selectTests } from '../../../src/data/graders/code/testCases.ts';
import type { RunEachOptions, SandboxResult } from '../../../src/sandbox/sandbox.ts';
import { closeSharedSandbox } from '../../../src/sandbox/sandbox.ts';
import { TASK_DATASETS, sampleDatasetPath } from '../../../src/data/taskCatalog.ts';
import { bwrapWorks } from '../../sandbox/sandboxSupport.ts';

afterAll(() => closeSharedSandbox());

const sumProblem = {
  problem: 'Read a and b, print a + b.',
  tests: JSON.stringify({ inputs: ['1 2\n', '5 7\n', '-3 3\n'], outputs: ['3\n', '12\n', '0\n'] }),
};
const py = (code: string) => `Here is my solution.\n\`\`\`python\n${code}\n\`\`\``;
const SUM = 'a, b = map(int, input().split())\nprint(a + b)';

async function grade(action: string, options: Record<string, unknown> = {}, rows: object[] = [sumProblem]) {
  const env = make('code:CodeContest', { dataset: rows, timeout: 2, ...options });
  await env.reset({ options: { idx: 0 } });
  return env.step(action);
}

describe('code test cases', () => {
  it('read GEM\'s {inputs, outputs} (object or JSON string), joining list-valued cases, and lists of {input, output}', () => {
    expect(parseTestCases({ inputs: [['1', '2']], outputs: [['3']] }, 't')).toEqual([{ input: '1\n2', output: '3' }]);
    expect(parseTestCases('{"inputs": ["x"], "outputs": ["y"]}', 't')).toEqual([{ input: 'x', output: 'y' }]);
    expect(parseTestCases([{ input: 'a', output: 'b' }], 't')).toEqual([{ input: 'a', output: 'b' }]);
  });

  it('reject tests that are not test cases, with DATASET_INVALID', () => {
    expect(() => parseTestCases('{oops', 't')).toThrow(/not valid JSON/);
    expect(() => parseTestCases({ inputs: ['1'], outputs: [] }, 't')).toThrow(/same length/);
    expect(() => parseTestCases({ inputs: [], outputs: [] }, 't')).toThrow(/no tests/);
    expect(() => parseTestCases(42, 't')).toThrow(/tests must be/);
  });

  it('keep the max_tests tests with the longest inputs', () => {
    const cases = ['a', 'bbbb', 'cc', 'ddd'].map((input) => ({ input, output: '' }));
    expect(selectTests(cases, 2).map((c) => c.input)).toEqual(['bbbb', 'ddd']);
  });

  it('take the last fenced block; the newline after the fence is required', () => {
    expect(lastCodeBlock('```python\nA\n``` and ```py\nB\n```')).toBe('B\n');
    expect(lastCodeBlock('```\nplain\n```')).toBe('plain\n');
    expect(lastCodeBlock('```python print(1)```')).toBeUndefined();
  });
});

describe('code envs with a stand-in runner', () => {
  const entry = TASK_DATASETS.find((e) => e.id === 'code:CodeContest')!;
  function envWith(run: (o: RunEachOptions) => Promise<SandboxResult[]>, options: Record<string, unknown>, rows: object[]) {
    const o = CodeOptions.parse({ dataset: rows, ...options });
    return new CodeEnv(o, entry, 0, undefined, run);
  }
  const ok = (stdout: string): SandboxResult => ({ stdout, stderr: '', exitCode: 0, timedOut: false, truncated: false, wallMs: 1 });
  const echo = async (o: RunEachOptions) => o.inputs.map((i) => ok(i.stdin!));

  it('hands a reply\'s tests to the runner in one call, max_workers at a time, and scores a wrong output 0', async () => {
    const tests = { inputs: Array.from({ length: 12 }, (_, i) => `${i}`), outputs: Array.from({ length: 12 }, (_, i) => `${i}`) };
    const calls: RunEachOptions[] = [];
    const run = async (o: RunEachOptions) => (calls.push(o), o.inputs.map((i) => ok(i.stdin === '3' ? 'wrong' : i.stdin!)));
    const env = envWith(run, { max_workers: 4 }, [{ problem: 'p', tests }]);
    await env.reset();
    expect(await env.step(py('echo'))).toMatchObject({ reward: 0, info: { correct: false, failure: 'wrong output', tests_passed: 11, tests_total: 12 } });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ parallel: 4, stopOnFailure: true, timeoutMs: 10_000, memoryMb: 1024 });
    expect(calls[0].inputs).toHaveLength(12);
  });

  it('grades only the max_tests longest inputs', async () => {
    const tests = { inputs: ['s', 'long input one', 'long input two'], outputs: ['never printed', 'long input one', 'long input two'] };
    const env = envWith(echo, { max_tests: 2 }, [{ problem: 'p', tests }]);
    await env.reset();
    expect(await env.step(py('echo'))).toMatchObject({ reward: 1, info: { tests_total: 2 } });
  });

  it('reports a bad tests column when the problem is shown', async () => {
    const env = envWith(async () => [ok('')], {}, [{ problem: 'p', tests: 'not json' }]);
    await expect(env.reset()).rejects.toMatchObject({ code: 'DATASET_INVALID' });
  });
});

describe.skipIf(!bwrapWorks())('code envs in the sandbox', () => {
  it('score a correct program 1', async () => {
    expect(await grade(py(SUM))).toEqual({
      observation: TERMINAL_STATE,
      reward: 1,
      terminated: true,
      truncated: true,
      info: { correct: true, tests_passed: 3, tests_total: 3 },
    });
  });

  it('score a wrong program 0', async () => {
    expect(await grade(py('a, b = map(int, input().split())\nprint(a - b)'))).toMatchObject({ reward: 0, info: { correct: false, failure: 'wrong output' } });
  });

  it('score a crashing program 0', async () => {
    expect(await grade(py('raise ValueError("boom")'))).toMatchObject({ reward: 0, info: { failure: 'exit code 1' } });
    expect(await grade(py('...'))).toMatchObject({ reward: 0 });
  });

  it('score a program that runs past the timeout 0', async () => {
    expect(await grade(py('while True:\n    pass'), { timeout: 1 })).toMatchObject({ reward: 0, info: { failure: 'timeout' } });
  });

  it('score a memory hog 0', async () => {
    expect(await grade(py('x = bytearray(4 * 1024 ** 3)\nprint(len(x))'), { memory_mb: 256 })).toMatchObject({ reward: 0 });
  });

  it('score hostile programs 0 and keep working afterwards', async () => {
    const hostile = [
      'import os\nwhile True:\n    os.fork()',
      'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)',
      'import shutil\nshutil.rmtree("/", ignore_errors=True)\nprint(open("/etc/passwd").read())',
      'import socket\nsocket.create_connection(("example.com", 80), timeout=1)',
      'print("x" * 10**9)',
    ];
    for (const code of hostile) expect(await grade(py(code), { timeout: 2 })).toMatchObject({ reward: 0 });
    expect(await grade(py(SUM))).toMatchObject({ reward: 1 });
  });

  // Before, the sandbox kept the first 65,536 bytes of stdout and the env compared that cut text, so
  // every correct program with a larger output scored 0.
  it('score a correct program with a large output 1 (the whole output is compared)', async () => {
    const n = 60_000;
    const expected = Array.from({ length: n }, (_, i) => String(i + 1)).join('\n');
    expect(Buffer.byteLength(expected)).toBeGreaterThan(5 * 64 * 1024);
    const rows = [{ problem: 'Print 1..n', tests: { inputs: [`${n}\n`], outputs: [expected] } }];
    const idioms = [
      'n = int(input())\nprint("\\n".join(map(str, range(1, n + 1))))',
      'import sys\nn = int(sys.stdin.buffer.readline())\nsys.stdout.write("\\n".join(str(i) for i in range(1, n + 1)) + "\\n")',
      'import sys\nfor i in range(1, int(input()) + 1):\n    print(i)',
    ];
    for (const code of idioms) expect(await grade(py(code), {}, rows), code).toMatchObject({ reward: 1, info: { correct: true } });
    expect(await grade(py('n = int(input())\nprint("\\n".join(map(str, range(1, n))))'), {}, rows)).toMatchObject({ reward: 0, info: { failure: 'wrong output' } });
  });

  it('stop a program that floods stdout and score it 0, with the reason in info', async () => {
    const r = await grade(py('a, b = map(int, input().split())\nprint(a + b)\nwhile True:\n    print("spam" * 100)'));
    expect(r).toMatchObject({ reward: 0, info: { correct: false } });
    expect(String(r.info.failure)).toMatch(/^output_limit: the program wrote more than \d+ bytes to stdout \(the expected output is [23] bytes\) and was stopped$/);
  });

  // Before, the forked child ended with os._exit(): atexit hooks (a fast-output idiom) never ran.
  it('score programs that end through atexit or sys.exit(0) like a real interpreter does', async () => {
    const atexitFlush = 'import atexit, io, sys\nbuf = io.StringIO()\natexit.register(lambda: sys.stdout.write(buf.getvalue()))\na, b = map(int, input().split())\nbuf.write(f"{a + b}\\n")';
    expect(await grade(py(atexitFlush))).toMatchObject({ reward: 1 });
    expect(await grade(py(`${SUM}\nimport sys\nsys.exit(0)`))).toMatchObject({ reward: 1 });
    expect(await grade(py(`${SUM}\nimport sys\nsys.exit(2)`))).toMatchObject({ reward: 0, info: { failure: 'exit code 2' } });
  });

  it('retries a program that forgot its imports with common imports in front (GEM\'s rule)', async () => {
    const rows = [{ problem: 'p', tests: { inputs: ['16\n'], outputs: ['4\n'] } }];
    expect(await grade(py('print(int(sqrt(int(input()))))'), {}, rows)).toMatchObject({ reward: 1 });
    expect(await grade(py('print(undefined_name)'), {}, rows)).toMatchObject({ reward: 0 });
  });

  it('cost −0.1 without a code block (format error)', async () => {
    expect(await grade(SUM)).toMatchObject({ reward: -0.1, info: { correct: false, format_error: true } });
    expect(await grade('```python print(1)```')).toMatchObject({ reward: -0.1 });
  });

  it('never block the event loop while a program runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      expect(await grade(py('import time\ntime.sleep(0.6)\nprint(0)'), {}, [{ problem: 'p', tests: { inputs: [''], outputs: ['0'] } }])).toMatchObject({ reward: 1 });
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(20);
  });

  it.each(listEnvs().filter((id) => id.startsWith('code:') || id === 'eval:CodeContest'))('%s passes checkEnv on the sample set', async (id) => {
    await expect(checkEnv(make(id, { dataset: sampleDatasetPath('code'), seed: 3, timeout: 5 }) as never)).resolves.toBeUndefined();
  });
});
