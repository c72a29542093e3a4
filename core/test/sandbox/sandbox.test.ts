import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isRoot } from '../../src/sandbox/isolation.ts';
import { MAX_STDOUT_BYTES, Sandbox } from '../../src/sandbox/sandbox.ts';
import { GemError } from '../../src/core/errors.ts';
import { bwrapWorks, cpusAllowed } from './sandboxSupport.ts';

describe.skipIf(!bwrapWorks())('Sandbox (bubblewrap)', () => {
  const sb = new Sandbox({ poolSize: 2 });
  afterAll(() => sb.close());

  it('runs code with stdin and returns stdout and the exit code', async () => {
    const r = await sb.run({ code: 'import sys\nname = input()\nprint("hi", name)\nsys.exit(3)', stdin: 'ada\n' });
    expect(r.stdout).toBe('hi ada\n');
    expect(r.exitCode).toBe(3);
    expect(r.timedOut).toBe(false);
    expect(r.killedReason).toBeUndefined();
  });

  it('gives stdin as a file the program may read twice', async () => {
    const r = await sb.run({ code: 'import sys\nfirst = sys.stdin.read()\nsys.stdin.seek(0)\nprint(first == sys.stdin.read(), len(first))', stdin: 'x'.repeat(300_000) });
    expect(r.stdout).toBe('True 300000\n');
  });

  it('reports an exception with a traceback that shows only the code', async () => {
    const r = await sb.run({ code: 'def f():\n    return 1 / 0\nf()' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('ZeroDivisionError');
    expect(r.stderr).toContain('File "main.py", line 2');
    expect(r.stderr).not.toContain('zygote');
  });

  it('reports a syntax error', async () => {
    const r = await sb.run({ code: 'print(' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('SyntaxError');
  });

  it('keeps no state between runs: globals, files, environment', async () => {
    await sb.run({ code: 'import os, builtins\nbuiltins.leak = 1\nopen("note.txt", "w").write("x")\nos.environ["LEAK"] = "1"' });
    const r = await sb.run({ code: 'import os, builtins\nprint(hasattr(builtins, "leak"), os.listdir("."), "LEAK" in os.environ)' });
    expect(r.stdout).toBe('False [] False\n');
  });

  it('runs concurrently across the pool', async () => {
    // Two zygotes: runs overlap in time. Checked by the runs' own wall-clock intervals, not by how long
    // the test took, so a loaded machine cannot fail it.
    const code = (i: number) => `import time\nt0 = time.time()\ntime.sleep(1.0)\nprint(${i}, t0, time.time())`;
    const rs = await Promise.all([0, 1, 2, 3].map((i) => sb.run({ code: code(i) })));
    const spans = rs.map((r) => r.stdout.trim().split(' ').map(Number));
    expect(spans.map((s) => s[0])).toEqual([0, 1, 2, 3]);
    const overlapping = spans.flatMap((a, i) => spans.slice(i + 1).filter((b) => a[1] < b[2] && b[1] < a[2]));
    expect(overlapping.length).toBeGreaterThan(0);
  });

  it('keeps the head of a long output and says it was truncated', async () => {
    const small = new Sandbox({ poolSize: 1, maxOutputBytes: 100 });
    try {
      const r = await small.run({ code: 'print("a" * 5000)' });
      expect(r.stdout).toBe('a'.repeat(100));
      expect(r.truncated).toBe(true);
      expect(r.exitCode).toBe(0);
    } finally {
      await small.close();
    }
  });

  it('answers a run whose zygote dies with a sandbox error, and serves the next run', async () => {
    const pending = sb.run({ code: 'import time\ntime.sleep(5)' });
    await new Promise((r) => setTimeout(r, 300));
    // Simulate a crash of the zygote process itself (not of the code it runs).
    const zygotes = [...(sb as unknown as { all: Set<{ busy: boolean; kill(): void }> }).all];
    zygotes.find((z) => z.busy)!.kill();
    const r = await pending;
    expect(r.killedReason).toBe('sandbox_error');
    expect(r.stderr).toMatch(/^Sandbox error: the sandbox process/);
    expect((await sb.run({ code: 'print("back")' })).stdout).toBe('back\n');
  });

  it('cancels a run on abort and serves the next one', async () => {
    const ac = new AbortController();
    const pending = sb.run({ code: 'import time\ntime.sleep(5)\nprint("late")', signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    const r = await pending;
    expect(r).toMatchObject({ killedReason: 'cancelled', exitCode: null, stdout: '' });
    expect(r.stderr).toBe('The run was cancelled.');
    expect((await sb.run({ code: 'print("next")' })).stdout).toBe('next\n');
    await expect(sb.run({ code: 'print(1)', signal: AbortSignal.abort() })).rejects.toThrow();
  });

  // Before, code ran by exec() in a child that ended with os._exit(): atexit hooks never ran, and
  // output left in an unclosed file object was lost.
  describe('ends a program the way the interpreter does', () => {
    it.each([
      ['atexit hooks run (a fast-output idiom)', 'import atexit, sys\nout = []\natexit.register(lambda: sys.stdout.write("".join(out)))\nout.append("late\\n")', 'late\n', 0],
      ['hooks run after an uncaught exception too', 'import atexit\natexit.register(print, "bye")\nraise ValueError', 'bye\n', 1],
      ['sys.exit(code) gives the exit code, after the hooks', 'import atexit, sys\natexit.register(print, "hook")\nprint("main")\nsys.exit(7)', 'main\nhook\n', 7],
      ['sys.exit in a hook is reported, not fatal', 'import atexit, sys\natexit.register(sys.exit, 5)\nprint("x")', 'x\n', 0],
      ['an unclosed buffered file on fd 1 is flushed, after stdout', 'print("first")\nout = open(1, "w", buffering=1 << 20, closefd=False)\nout.write("kept\\n")', 'first\nkept\n', 0],
      ['non-daemon threads are joined first', 'import threading, time\ndef work():\n    time.sleep(0.2)\n    print("thread")\nthreading.Thread(target=work).start()', 'thread\n', 0],
      ['sys.stdout.buffer writes in order with print', 'import sys\nprint("a", flush=True)\nsys.stdout.buffer.write(b"b\\n")', 'a\nb\n', 0],
      ['os._exit still skips everything, as it does in Python', 'import atexit, os\natexit.register(print, "never")\nos._exit(4)', '', 4],
    ])('%s', async (_what, code, stdout, exitCode) => {
      const r = await sb.run({ code });
      expect(r.stdout).toBe(stdout);
      expect(r.exitCode).toBe(exitCode);
    });

    it('the hooks the zygote itself registered do not run in the program', async () => {
      const r = await sb.run({ code: 'import atexit\nprint(atexit._ncallbacks())' });
      expect(r.stdout).toBe('0\n');
    });

    it('hooks stay inside the limits: an endless hook is stopped by the timeout', async () => {
      const r = await sb.run({ code: 'import atexit\natexit.register(lambda: [0 for _ in iter(int, 1)])\nprint("main")', timeoutMs: 1000 });
      expect(r.killedReason).toBe('timeout');
    });
  });

  describe('per-run stdout caps', () => {
    it('keeps a whole 1 MB output when the run asks for it, and cuts at the default otherwise', async () => {
      const code = 'import sys\nsys.stdout.write("z" * 1_000_000)';
      const big = await sb.run({ code, stdoutKeepBytes: 2_000_000, stdoutKillBytes: 2_000_000 });
      expect(big).toMatchObject({ exitCode: 0, truncated: false });
      expect(big.stdout.length).toBe(1_000_000);
      const dflt = await sb.run({ code });
      expect(dflt.stdout.length).toBe(64 * 1024);
      expect(dflt.truncated).toBe(true);
    });

    it('stops a run at its own stdout cap and names the stream', async () => {
      const r = await sb.run({ code: 'while True:\n    print("flood")', stdoutKeepBytes: 10_000, stdoutKillBytes: 10_000 });
      expect(r).toMatchObject({ killedReason: 'output_limit', flooded: 'stdout', exitCode: null });
      expect(r.stderr).toMatch(/wrote more than 0 MB to stdout/);
    });

    it('counts stderr apart: a chatty stderr does not stop a run whose stdout is small', async () => {
      const r = await sb.run({ code: 'import sys\nfor _ in range(3):\n    sys.stderr.write("d" * 1_000_000)\nprint("ok")' });
      expect(r).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
    });

    it('rejects a cap that is not a positive whole number of bytes or is over the ceiling', async () => {
      for (const bad of [0, -1, 1.5, Number.NaN, MAX_STDOUT_BYTES + 1]) {
        await expect(sb.run({ code: 'print(1)', stdoutKeepBytes: bad })).rejects.toThrow(/stdoutKeepBytes/);
      }
      await expect(sb.run({ code: 'print(1)', stdoutKillBytes: 0 })).rejects.toThrow(/stdoutKillBytes/);
    });
  });

  it('rejects bad limits with a clear error', async () => {
    expect(() => new Sandbox({ timeoutMs: -1 })).toThrow(/timeoutMs/);
    await expect(sb.run({ code: 'print(1)', memoryMb: Number.NaN })).rejects.toThrow(/memoryMb/);
    await expect(sb.run({ code: 42 as unknown as string })).rejects.toThrow(GemError);
  });
});

const FIXTURE = fileURLToPath(new URL('./fixtures/unprivilegedSandbox.ts', import.meta.url));
const NOBODY = ['--reuid', '65534', '--regid', '65534', '--clear-groups'];
// The unprivileged user must also be able to read this checkout (a `mktemp -d` clone is mode 0700).
const canDropToNobody =
  isRoot() &&
  existsSync('/usr/bin/setpriv') &&
  existsSync('/usr/bin/python3') &&
  spawnSync('/usr/bin/setpriv', [...NOBODY, '/usr/bin/test', '-r', FIXTURE]).status === 0;

describe.skipIf(!bwrapWorks() || !canDropToNobody)('Sandbox run by an unprivileged user', () => {
  it('isolates the same way through a user namespace', () => {
    const r = spawnSync(
      '/usr/bin/setpriv',
      [...NOBODY, process.execPath, '--import', 'tsx', FIXTURE, '/usr/bin/python3'],
      { encoding: 'utf8', timeout: 60_000, env: { PATH: '/usr/bin:/bin', HOME: '/tmp' } },
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({
      isolation: 'bwrap',
      uid: '65534',
      fork: 'stopped',
      writeRoot: true,
      writeDev: true,
      scratch: "['a']",
      // Here the run can mount its own /proc, so it sees only itself.
      clean: '[] 1',
      perRunNamespaces: true,
    });
  });
});

describe.skipIf(!bwrapWorks())('Sandbox.runEach: one program, a process per input', () => {
  const sb = new Sandbox({ poolSize: 2, timeoutMs: 4000 });
  afterAll(() => sb.close());
  const inputs = (...stdins: string[]) => stdins.map((stdin) => ({ stdin }));

  it('runs each input in a process of its own, in input order, each with its own stdin, folder and exit code', async () => {
    const code = [
      'import os, sys',
      'x = sys.stdin.read().strip()',
      'before = sorted(os.listdir("."))',
      'open("mine", "w").write(x)',
      'print(x, os.getpid(), os.path.basename(os.getcwd()), before)',
      'sys.exit(int(x))',
    ].join('\n');
    const rs = await sb.runEach({ code, inputs: inputs('0', '3', '0', '7'), parallel: 1 });
    expect(rs.map((r) => r.exitCode)).toEqual([0, 3, 0, 7]);
    const seen = rs.map((r) => r.stdout.trim().split(' '));
    expect(seen.map((s) => s[0])).toEqual(['0', '3', '0', '7']);
    expect(new Set(seen.map((s) => s[1])).size).toBe(4);
    expect(new Set(seen.map((s) => s[2])).size).toBe(4);
    // No test finds a file an earlier one wrote.
    expect(seen.map((s) => s.slice(3).join(' '))).toEqual(['[]', '[]', '[]', '[]']);
  });

  it('reports a syntax error from every input as a run does, and starts each input from unrun code, short or long', async () => {
    const broken = 'x = 1\nif x\n    print(x)';
    const alone = await sb.run({ code: broken });
    const each = await sb.runEach({ code: broken, inputs: inputs('', ''), parallel: 2 });
    expect(alone.stderr).toMatch(/File "main.py", line 2[\s\S]*SyntaxError/);
    expect(each.map((r) => [r.exitCode, r.stderr])).toEqual([[1, alone.stderr], [1, alone.stderr]]);
    // The runner compiles the code once; nothing of one input's run is in the next one's.
    const counter = 'import sys\ndef bump(seen=[]):\n    seen.append(1)\n    return len(seen)\nprint(bump(), sys.modules.get("fractions") is not None and hasattr(sys.modules["fractions"], "mine"))\nimport fractions\nfractions.mine = 1';
    expect((await sb.runEach({ code: counter, inputs: inputs('', '', ''), parallel: 1 })).map((r) => r.stdout)).toEqual(['1 False\n', '1 False\n', '1 False\n']);
    // Code longer than the runner compiles for its tests is compiled by each.
    const long = `# ${'x'.repeat(70_000)}\nprint(input())`;
    expect((await sb.runEach({ code: long, inputs: inputs('a', 'b') })).map((r) => r.stdout)).toEqual(['a\n', 'b\n']);
  });

  it('gives each input what a fresh interpreter has: its own random seed, working threads and fork', async () => {
    const code = [
      'import os, random, threading',
      'seen = []',
      't = threading.Thread(target=lambda: seen.append(threading.get_ident() != threading.main_thread().ident))',
      't.start(); t.join()',
      'pid = os.fork()',
      'if pid == 0:',
      '    os._exit(7)',
      '_, status = os.waitpid(pid, 0)',
      'print(seen[0], os.waitstatus_to_exitcode(status), threading.current_thread() is threading.main_thread(), random.random())',
      '# Not a daemon: the interpreter waits for it on the way out.',
      'threading.Thread(target=lambda: (__import__("time").sleep(0.05), print("joined"))).start()',
    ].join('\n');
    const rs = await sb.runEach({ code, inputs: inputs('', '', '', ''), parallel: 2 });
    const lines = rs.map((r) => r.stdout.trim().split('\n'));
    expect(lines.map((l) => [l[0].split(' ').slice(0, 3).join(' '), l[1]])).toEqual(Array(4).fill(['True 7 True', 'joined']));
    expect(new Set(lines.map((l) => l[0].split(' ')[3])).size).toBe(4);
  });

  it('names the signal an input ended by, its own included', async () => {
    // Each input is a child of the run's init (pid 1), so a signal it sends itself ends it as it ends an interpreter.
    const code = [
      'import os, signal, time',
      'how = input()',
      'if how == "term":',
      '    os.kill(os.getpid(), signal.SIGTERM)',
      'elif how == "abort":',
      '    os.abort()',
      'elif how == "alarm":',
      '    signal.alarm(1)',
      '    time.sleep(3)',
      'print("still here")',
    ].join('\n');
    const rs = await sb.runEach({ code, inputs: inputs('term', 'abort', 'alarm'), parallel: 3 });
    expect(rs.map((r) => [r.exitCode, r.killedReason, r.stdout, r.stderr])).toEqual(
      ['SIGTERM', 'SIGABRT', 'SIGALRM'].map((name) => [null, 'signal', '', `The program was killed by signal ${name}.`]),
    );
  });

  it('lets every input and run use each CPU the sandbox may use', async () => {
    const allowed = cpusAllowed();
    const code = 'import os\nprint(sorted(os.sched_getaffinity(0)))';
    const each = await sb.runEach({ code, inputs: inputs('', '', '', ''), parallel: 2 });
    const alone = await sb.run({ code });
    expect([...each, alone].map((r) => JSON.parse(r.stdout))).toEqual(Array(5).fill(allowed));
  });

  it('keeps at most `parallel` processes running at once', async () => {
    // Each test marks itself alive in the shared scratch root, waits, and counts the marks it sees.
    const code = [
      'import os, sys, time',
      'mark = "/tmp/alive-" + sys.stdin.read().strip()',
      'open(mark, "w").close()',
      'time.sleep(0.4)',
      'print(len([f for f in os.listdir("/tmp") if f.startswith("alive-")]))',
      'os.unlink(mark)',
    ].join('\n');
    const rs = await sb.runEach({ code, inputs: inputs('a', 'b', 'c', 'd', 'e', 'f'), parallel: 3 });
    const counts = rs.map((r) => Number(r.stdout));
    expect(rs.every((r) => r.exitCode === 0)).toBe(true);
    expect(Math.max(...counts)).toBe(3);
  });

  it('with stopOnFailure starts no input after one crashed; without it runs them all', async () => {
    const code = 'x = input()\nif x == "boom":\n    raise ValueError(x)\nprint(x)';
    const stopped = await sb.runEach({ code, inputs: inputs('a', 'boom', 'c', 'd'), parallel: 1, stopOnFailure: true });
    expect(stopped.map((r) => r.exitCode)).toEqual([0, 1]);
    expect(stopped[1].stderr).toMatch(/ValueError: boom/);
    const all = await sb.runEach({ code, inputs: inputs('a', 'boom', 'c', 'd'), parallel: 1 });
    expect(all.map((r) => r.stdout)).toEqual(['a\n', '', 'c\n', 'd\n']);
  });

  it('gives each input its own timeout and stdout caps', async () => {
    const code = 'import time\nx = float(input())\ntime.sleep(x)\nprint("z" * 5000)';
    const rs = await sb.runEach({
      code,
      inputs: [{ stdin: '0' }, { stdin: '5' }, { stdin: '0', stdoutKeepBytes: 1000, stdoutKillBytes: 1000 }, { stdin: '0' }],
      timeoutMs: 1000,
      parallel: 2,
    });
    expect(rs.map((r) => r.killedReason)).toEqual([undefined, 'timeout', 'output_limit', undefined]);
    expect(rs[1].stderr).toBe('Execution timed out after 1 seconds.');
    expect(rs[2].flooded).toBe('stdout');
    expect(rs[3].stdout).toBe(`${'z'.repeat(5000)}\n`);
  });

  it('ends what a run left running when it exits, so the run does not wait for it nor does it outlive the run', async () => {
    // The first input leaves a child appending to a file every 20 ms; the next looks whether it still grows.
    const code = [
      'import os, sys, time',
      'if input() == "leave":',
      '    if os.fork() == 0:',
      '        while True:',
      '            open("/tmp/stray", "a").write("x")',
      '            time.sleep(0.02)',
      '    time.sleep(0.1)',
      '    print("left")',
      'else:',
      '    a = os.path.getsize("/tmp/stray")',
      '    time.sleep(0.2)',
      '    print(a > 0, os.path.getsize("/tmp/stray") - a)',
    ].join('\n');
    const rs = await sb.runEach({ code, inputs: inputs('leave', 'look'), parallel: 1, timeoutMs: 3000 });
    expect(rs.map((r) => r.stdout)).toEqual(['left\n', 'True 0\n']);
    expect(rs[0].killedReason).toBeUndefined();
  });

  it('answers a call whose zygote dies, or that is cancelled, with one result saying so, and serves the next call', async () => {
    const slow = 'import time\ntime.sleep(5)';
    const pending = sb.runEach({ code: slow, inputs: inputs('', '') });
    await new Promise((r) => setTimeout(r, 300));
    const zygotes = [...(sb as unknown as { all: Set<{ busy: boolean; kill(): void }> }).all];
    zygotes.find((z) => z.busy)!.kill();
    const died = await pending;
    expect(died).toHaveLength(1);
    expect(died[0]).toMatchObject({ killedReason: 'sandbox_error', exitCode: null });
    const ac = new AbortController();
    const cancelled = sb.runEach({ code: slow, inputs: inputs('', ''), signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    expect(await cancelled).toEqual([expect.objectContaining({ killedReason: 'cancelled', stderr: 'The run was cancelled.' })]);
    expect((await sb.runEach({ code: 'print(input())', inputs: inputs('x', 'y') })).map((r) => r.stdout)).toEqual(['x\n', 'y\n']);
  });

  it('answers a call whose runner fails with a sandbox error that says why, and serves the next call', async () => {
    // Node never sends a process limit that is not a number: here it stands for anything that breaks the runner.
    const ask = (sb as unknown as { ask(req: object, watchdogMs: number): Promise<{ tests: unknown[]; error: string }> }).ask.bind(sb);
    const base = { code: 'print(1)', timeout_ms: 2000, cpu_s: 2, memory_mb: 0, max_procs: 8, max_file_bytes: 1 << 20, max_output_bytes: 65536, kill_output_bytes: 1 << 22 };
    const reply = await ask({ ...base, max_procs: 'many', tests: [{ stdin: '' }], parallel: 1 }, 10_000);
    expect(reply.tests).toEqual([]);
    expect(reply.error).toMatch(/^the tests' runner ended early \(exit code 1\): TypeError: can only concatenate str/);
    // A request the zygote cannot read is refused before any process is made for it.
    expect(await ask({ ...base, tests: ['not an object'], parallel: 1 }, 10_000)).toMatchObject({ error: expect.stringMatching(/^zygote: AttributeError/) });
    expect((await sb.runEach({ code: 'print(input())', inputs: inputs('ok') }))[0].stdout).toBe('ok\n');
  });

  it('rejects bad options with a clear error', async () => {
    await expect(sb.runEach({ code: 'pass', inputs: [] })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: /inputs/ });
    await expect(sb.runEach({ code: 'pass', inputs: inputs(''), parallel: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: /parallel/ });
    await expect(sb.runEach({ code: 'pass', inputs: [{ stdoutKillBytes: -1 }] })).rejects.toMatchObject({ message: /inputs\[0\]\.stdoutKillBytes/ });
    await expect(sb.runEach({ code: 1 as never, inputs: inputs('') })).rejects.toBeInstanceOf(GemError);
  });
});

describe('Sandbox without bubblewrap', () => {
  it('refuses to run unsandboxed unless the user opts in', () => {
    expect(() => new Sandbox({ bwrap: null, allowUnsandboxed: false })).toThrow(/Refusing to run code without isolation/);
  });

  it('runs with rlimits only when opted in', async () => {
    const sb = new Sandbox({ bwrap: null, allowUnsandboxed: true, poolSize: 1 });
    try {
      expect(sb.isolation.kind).toBe('none');
      const r = await sb.run({ code: 'print(sum(range(10)))' });
      expect(r.stdout).toBe('45\n');
      const t = await sb.run({ code: 'while True: pass', timeoutMs: 800 });
      expect(t.timedOut).toBe(true);
      expect((await sb.run({ code: 'print("again")' })).stdout).toBe('again\n');
      const each = await sb.runEach({ code: 'import os\nprint(input(), os.path.basename(os.getcwd()))', inputs: [{ stdin: 'a' }, { stdin: 'b' }], parallel: 2 });
      expect(each.map((e) => e.stdout)).toEqual(['a test-0\n', 'b test-1\n']);
    } finally {
      await sb.close();
    }
  });
});

describe.skipIf(!bwrapWorks())('Sandbox with a Python under /tmp', () => {
  it('sees a venv that lives under the scratch path (the scratch tmpfs used to hide it)', async () => {
    const dir = mkdtempSync('/tmp/gem-ts-venv-');
    try {
      const made = spawnSync('python3', ['-m', 'venv', '--without-pip', join(dir, 'venv')], { stdio: 'ignore' });
      expect(made.status).toBe(0);
      const sb = new Sandbox({ poolSize: 1, python: join(dir, 'venv', 'bin', 'python') });
      try {
        const r = await sb.run({ code: 'import sys\nprint(sys.prefix)' });
        expect(r.exitCode).toBe(0);
        expect(r.stdout.trim()).toBe(join(dir, 'venv'));
      } finally {
        await sb.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a run stopped by two limits at once', () => {
  // A busy loop on an idle machine reaches its CPU limit and the wall clock together: the runner's
  // SIGXCPU line and the wall-clock kill both arrive. The result names the limit once.
  const toResult = (reply: Record<string, unknown>) => {
    const sb = new Sandbox({ poolSize: 1, allowUnsandboxed: true });
    const lim = { timeoutMs: 2000, memoryMb: 256, cpuSeconds: 2, stdoutKill: 1 << 20 };
    return (sb as unknown as { toResult(r: unknown, l: typeof lim): { stderr: string; killedReason?: string } }).toResult(reply, lim);
  };

  it('a wall-clock kill after the SIGXCPU line says only the timeout', () => {
    const r = toResult({ killed: 'timeout', stdout: '', stderr: 'partial\nCPU time limit exceeded\n' });
    expect(r).toMatchObject({ killedReason: 'timeout', stderr: 'partial\nExecution timed out after 2 seconds.' });
  });

  it('a CPU-limit exit as the wall clock ran out, just after or just before, says the timeout', () => {
    for (const wall_ms of [2000.4, 1994.2]) {
      const r = toResult({ cpu_limit: true, wall_ms, stdout: '', stderr: '\nCPU time limit exceeded\n' });
      expect(r).toMatchObject({ killedReason: 'timeout', stderr: 'Execution timed out after 2 seconds.' });
    }
  });

  it('a CPU-limit exit says the CPU limit once, and a program that prints those words keeps them', () => {
    expect(toResult({ cpu_limit: true, wall_ms: 1200, stdout: '', stderr: '\nCPU time limit exceeded\n' })).toMatchObject({ killedReason: 'cpu_limit', stderr: 'CPU time limit exceeded (2 s).' });
    expect(toResult({ exit_code: 0, stdout: '', stderr: 'CPU time limit exceeded\n' })).toMatchObject({ killedReason: undefined, stderr: 'CPU time limit exceeded\n' });
  });
});
