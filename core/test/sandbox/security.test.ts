/**
 * Hostile code against the sandbox: each attempt must be contained, come back with a clear message,
 * leave the sandbox serving, and leave nothing behind for the next run.
 */
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, type SandboxResult } from '../../src/sandbox/sandbox.ts';
import { bwrapWorks } from './sandboxSupport.ts';

const THIS_FILE = fileURLToPath(import.meta.url);
const REPO_README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** The processes a run can see, sorted by where they hang in the tree (see expectCleanNextRun). */
const PROCESS_TREE = `import json, os
parent = {}
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            parent[int(p)] = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
        except OSError:
            pass
me = int(os.readlink("/proc/self"))
inits = [p for p, pp in parent.items() if pp == 0 and p != me]
zygotes = [p for p, pp in parent.items() if pp in inits]
runners = [p for p, pp in parent.items() if pp in zygotes]
others = set(parent) - {me} - set(inits) - set(zygotes) - set(runners)
print(json.dumps({"files": sorted(os.listdir(".")), "inits": len(inits), "zygotes": len(zygotes), "runners": len(runners), "others": len(others)}))`;

/**
 * After every attack: the same sandbox still runs code, in an empty scratch dir, and nothing of an
 * earlier run is left. Where a run sees the zygote's processes (gem-ts runs as root), those are
 * bubblewrap's init, the zygote and its runners (this run's and the one made ahead), nothing
 * else: no orphan, no child of a runner. With a /proc of its own (an unprivileged user) a run sees
 * only itself.
 */
async function expectCleanNextRun(sb: Sandbox): Promise<void> {
  const r = await sb.run({ code: PROCESS_TREE });
  expect(r.exitCode).toBe(0);
  const seen = JSON.parse(r.stdout) as { files: string[]; inits: number; zygotes: number; others: number; runners: number };
  expect(seen.files).toEqual([]);
  expect(seen.others).toBe(0);
  if (seen.inits + seen.zygotes > 0) {
    expect(seen).toMatchObject({ inits: 1, zygotes: 1 });
    // This run's runner, and the next run's made ahead (or being made).
    expect(seen.runners).toBeGreaterThanOrEqual(1);
    expect(seen.runners).toBeLessThanOrEqual(2);
  }
}

describe.skipIf(!bwrapWorks())('sandbox security across runs in flight', () => {
  const pool = new Sandbox({ poolSize: 2, timeoutMs: 8000 });
  afterAll(() => pool.close());

  it("two runs at once see neither each other's files nor processes", async () => {
    // A writes a file and waits; B, running at the same time in the other zygote, looks for it
    // everywhere it can: its own scratch, every /proc/<pid>/root it can see.
    const a = pool.run({ code: 'import time\nopen("secret-of-a", "w").write("x")\nprint("a wrote")\ntime.sleep(1.5)' });
    await new Promise((r) => setTimeout(r, 300));
    const b = await pool.run({
      code: [
        'import os',
        'found = [f for f in os.listdir(".") if "secret" in f]',
        'for p in os.listdir("/proc"):',
        '    if p.isdigit():',
        '        try:',
        '            found += [f"{p}:{f}" for f in os.listdir(f"/proc/{p}/root/tmp") if "secret" in f]',
        '        except OSError:',
        '            pass',
        'print(found)',
      ].join('\n'),
    });
    expect(b.stdout).toBe('[]\n');
    expect((await a).stdout).toBe('a wrote\n');
  });
});

describe.skipIf(!bwrapWorks())('sandbox security', () => {
  const sb = new Sandbox({ poolSize: 1, timeoutMs: 4000, memoryMb: 512 });
  let server: Server;
  let port = 0;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('secret');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await sb.close();
    await new Promise((r) => server.close(r));
  });

  function expectFailedWith(r: SandboxResult, pattern: RegExp): void {
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(pattern);
  }

  it('cannot reach a server on the host, nor the internet', async () => {
    const local = await sb.run({
      code: `import urllib.request\nprint(urllib.request.urlopen("http://127.0.0.1:${port}/", timeout=2).read())`,
    });
    expectFailedWith(local, /Connection refused|URLError/);
    const remote = await sb.run({ code: 'import socket\nsocket.create_connection(("1.1.1.1", 80), timeout=2)' });
    expectFailedWith(remote, /Network is unreachable|OSError/);
    const dns = await sb.run({ code: 'import socket\nprint(socket.gethostbyname("example.com"))' });
    expectFailedWith(dns, /gaierror|Temporary failure|Name or service/);
    expect(hits).toBe(0);
    await expectCleanNextRun(sb);
  });

  it("cannot read the host's files: the repository, /etc, home folders", async () => {
    const paths = [THIS_FILE, REPO_README, '/etc/passwd', '/etc/hostname', '/root/.bashrc', '/home'].filter((p) => existsSync(p));
    expect(paths).toContain(REPO_README);
    for (const path of paths) {
      const r = await sb.run({ code: `import os\np = ${JSON.stringify(path)}\nprint(os.listdir(p) if os.path.isdir(p) else open(p).read())` });
      expectFailedWith(r, /FileNotFoundError|PermissionError/);
    }
    await expectCleanNextRun(sb);
  });

  it('cannot write outside its scratch dir, and the scratch dir is bounded', async () => {
    const marker = `/tmp/gem-ts-sandbox-escape-${process.pid}`;
    const ro = await sb.run({ code: 'open("/usr/gem-ts-escape", "w").write("x")' });
    expectFailedWith(ro, /Read-only file system|PermissionError/);
    const host = await sb.run({ code: `import os\nos.makedirs(${JSON.stringify(THIS_FILE + '.d')})` });
    // A checkout under /tmp (CI may clone there) maps onto the sandbox's private /tmp, where the write
    // succeeds harmlessly; anywhere else it must fail. Either way nothing reaches the host (checked below).
    if (!THIS_FILE.startsWith('/tmp/')) expectFailedWith(host, /Read-only|Permission|FileNotFound|No such file/);
    for (const path of ['/escape', '/dev/escape', '/gem/escape', '/proc/escape']) {
      const r = await sb.run({ code: `open(${JSON.stringify(path)}, "w").write("x")` });
      expectFailedWith(r, /Read-only|Permission|No such file/);
    }
    const shm = await sb.run({ code: 'open("/dev/shm/note", "w").write("x")\nprint("wrote")' });
    expect(shm.stdout).toBe('wrote\n');
    expect((await sb.run({ code: 'import os\nprint(os.listdir("/dev/shm"))' })).stdout).toBe('[]\n');
    const tmp = await sb.run({ code: `open(${JSON.stringify(marker)}, "w").write("x")\nprint("wrote")` });
    expect(tmp.stdout).toBe('wrote\n');
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(THIS_FILE + '.d')).toBe(false);
    const fill = await sb.run({
      code: 'i = 0\nwhile True:\n    open(f"f{i}", "wb").write(b"x" * 4_000_000)\n    i += 1',
    });
    expectFailedWith(fill, /No space left on device|File too large/);
    await expectCleanNextRun(sb);
  });

  it('survives a fork bomb and leaves no process behind', async () => {
    const r = await sb.run({
      code: 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass',
      timeoutMs: 2000,
    });
    expect(r.killedReason).toBe('timeout');
    expect(r.stderr).toContain('Execution timed out after 2 seconds.');
    await expectCleanNextRun(sb);
  });

  it('stops code that allocates without end', async () => {
    const r = await sb.run({ code: 'chunks = []\nwhile True:\n    chunks.append(bytearray(50_000_000))' });
    expect(r.killedReason).toBe('memory_limit');
    expect(r.stderr).toContain('Memory limit exceeded (512 MB).');
    // One huge allocation at once, from C.
    const big = await sb.run({ code: 'x = bytearray(8 * 1024 ** 3)' });
    expect(big.killedReason).toBe('memory_limit');
    await expectCleanNextRun(sb);
  });

  it('stops an endless loop on the wall clock and on CPU time', async () => {
    const wall = await sb.run({ code: 'import time\nwhile True:\n    time.sleep(0.1)', timeoutMs: 1000 });
    expect(wall.timedOut).toBe(true);
    expect(wall.exitCode).toBeNull();
    expect(wall.stderr).toBe('Execution timed out after 1 seconds.');
    const cpu = await sb.run({ code: 'while True:\n    pass', timeoutMs: 8000, cpuSeconds: 1 });
    expect(cpu.killedReason).toBe('cpu_limit');
    expect(cpu.stderr).toContain('CPU time limit exceeded (1 s).');
    await expectCleanNextRun(sb);
  });

  it('stops a program that prints 100 MB, quickly, keeping the head', async () => {
    const r = await sb.run({ code: 'import sys\nfor _ in range(100):\n    sys.stdout.write("y" * 1_000_000)' });
    expect(r.killedReason).toBe('output_limit');
    expect(r.stderr).toMatch(/^Output limit exceeded/);
    expect(r.stdout.length).toBe(64 * 1024);
    expect(r.stdout).toMatch(/^y+$/);
    expect(r.truncated).toBe(true);
    expect(r.wallMs).toBeLessThan(3000);
    await expectCleanNextRun(sb);
  });

  it('cannot kill its parent, its process group, or everything it can see', async () => {
    for (const code of [
      'import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint("still here")',
      'import os, signal\nos.killpg(0, signal.SIGKILL)\nprint("still here")',
      'import os, signal\nos.kill(-1, signal.SIGKILL)\nprint("still here")',
      'import os, signal\nos.kill(1, signal.SIGKILL)\nprint("still here")',
    ]) {
      const r = await sb.run({ code });
      // The code can only hurt itself: it is killed (and told so), or the kill fails or does nothing.
      if (r.killedReason) expect(r.stderr).toMatch(/killed by signal SIGKILL/);
      else expect(r.stdout + r.stderr).toMatch(/still here|ProcessLookupError|PermissionError/);
      await expectCleanNextRun(sb);
    }
  });

  it('holds no capability: cannot unmount its scratch tmpfs (the zygote\'s /tmp is under it) nor mount one', async () => {
    const r = await sb.run({
      code: [
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb"))]',
        'umount = libc.umount2(b"/tmp", 2), ctypes.get_errno()',
        'mount = libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"size=1g"), ctypes.get_errno()',
        'print(caps, umount, mount)',
      ].join('\n'),
    });
    expect(r.stdout).toBe("['0000000000000000', '0000000000000000', '0000000000000000', '0000000000000000'] (-1, 1) (-1, 1)\n");
    await expectCleanNextRun(sb);
  });

  it("cannot reach any other process's files, memory or descriptors, nor signal it", async () => {
    // Where the run sees the zygote's processes (as root): bubblewrap's init, the zygote and the
    // runner made ahead for the next run. None may be opened or signalled.
    const r = await sb.run({
      code: [
        'import os, signal',
        'me = int(os.readlink("/proc/self"))',
        'others = [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != me]',
        'reached = []',
        'for pid in others:',
        '    for path in ("root/tmp", "cwd", "fd"):',
        '        try:',
        '            if os.listdir(f"/proc/{pid}/{path}"):',
        '                reached.append((pid, path))',
        '        except OSError:',
        '            pass',
        '    # A keeper that has exited but is not reaped yet has no memory: opening its maps reads nothing.',
        '    for path in ("environ", "maps", "mem"):',
        '        try:',
        '            with open(f"/proc/{pid}/{path}", "rb") as f:',
        '                if f.read(1):',
        '                    reached.append((pid, path))',
        '        except OSError:',
        '            pass',
        '# Signals name pids of the run\'s own namespace, where it is pid 1 and alone.',
        'signalled = []',
        'for pid in range(2, 400):',
        '    try:',
        '        os.kill(pid, 0)',
        '        signalled.append(pid)',
        '    except OSError:',
        '        pass',
        'print(len(others) >= 0, reached, signalled)',
      ].join('\n'),
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('True [] []\n');
    await expectCleanNextRun(sb);
  });

  it('is stopped, with everything it started, even after clearing its parent-death signal', async () => {
    const r = await sb.run({
      code: 'import ctypes, os, time\nctypes.CDLL(None).prctl(1, 0)\nif os.fork() == 0:\n    ctypes.CDLL(None).prctl(1, 0)\ntime.sleep(60)',
      timeoutMs: 1000,
    });
    expect(r.killedReason).toBe('timeout');
    await expectCleanNextRun(sb);
  });

  it('cannot talk to the zygote through inherited descriptors', async () => {
    const r = await sb.run({ code: 'import os\nprint(sorted(int(f) for f in os.listdir("/proc/self/fd")))' });
    // 0-2 and the descriptor listdir itself opened.
    expect(JSON.parse(r.stdout)).toEqual([0, 1, 2, 3]);
  });
});

describe.skipIf(!bwrapWorks())('sandbox security of runEach (a process per input, inside one run)', () => {
  const sb = new Sandbox({ poolSize: 2, timeoutMs: 4000, memoryMb: 512 });
  afterAll(() => sb.close());

  it('an input\'s run cannot signal, trace or read the memory of the process that starts the runs; the later inputs still run', async () => {
    const code = [
      'import ctypes, os, signal',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'parent = os.getppid()',
      'if input() == "attack":',
      '    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGSEGV, signal.SIGXCPU, signal.SIGUSR1):',
      '        try:',
      '            os.kill(parent, sig)',
      '        except OSError:',
      '            pass',
      '    traced = libc.ptrace(16, parent, 0, 0), ctypes.get_errno()',
      '    class iovec(ctypes.Structure):',
      '        _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]',
      '    buf = ctypes.create_string_buffer(8)',
      '    local, remote = iovec(ctypes.cast(buf, ctypes.c_void_p), 8), iovec(0x400000, 8)',
      '    libc.process_vm_readv.restype = ctypes.c_ssize_t',
      '    read = libc.process_vm_readv(parent, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0), ctypes.get_errno()',
      '    print(traced, read)',
      'else:',
      '    print("still served")',
    ].join('\n');
    const rs = await sb.runEach({ code, inputs: [{ stdin: 'attack' }, { stdin: 'after' }], parallel: 1 });
    expect(sb.perRunNamespaces).toBe(true);
    // EPERM for both: the starter is not dumpable, and a run holds no capability.
    expect(rs.map((r) => r.stdout)).toEqual(['(-1, 1) (-1, 1)\n', 'still served\n']);
    await expectCleanNextRun(sb);
  });

  it("one call's runs see neither the files nor the processes of another call's runs", async () => {
    const writer = sb.runEach({ code: 'import time\nopen("secret-of-a", "w").write("x")\nopen("/tmp/secret-of-a2", "w").write("x")\nprint("a wrote")\ntime.sleep(1.5)', inputs: [{}, {}], parallel: 2 });
    await new Promise((r) => setTimeout(r, 400));
    const looker = await sb.runEach({
      code: [
        'import os',
        'found = [f for d in (".", "/tmp") for f in os.listdir(d) if "secret" in f]',
        'for p in os.listdir("/proc"):',
        '    if p.isdigit():',
        '        for sub in ("root/tmp", "cwd"):',
        '            try:',
        '                found += [f"{p}:{f}" for f in os.listdir(f"/proc/{p}/{sub}") if "secret" in f]',
        '            except OSError:',
        '                pass',
        'print(found)',
      ].join('\n'),
      inputs: [{}],
    });
    expect(looker[0].stdout).toBe('[]\n');
    expect((await writer).map((r) => r.stdout)).toEqual(['a wrote\n', 'a wrote\n']);
  });

  it('runs hold no capability and no descriptor but their standard streams', async () => {
    const code = [
      'import os',
      'caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb"))]',
      'print(caps, sorted(int(f) for f in os.listdir("/proc/self/fd")))',
    ].join('\n');
    const rs = await sb.runEach({ code, inputs: [{}, {}], parallel: 2 });
    const zero = '0000000000000000';
    for (const r of rs) expect(r.stdout).toBe(`['${zero}', '${zero}', '${zero}', '${zero}'] [0, 1, 2, 3]\n`);
  });

  it('a fork bomb in one input is contained, the other inputs run, and nothing is left for the next call', async () => {
    const code = 'import os\nif input() == "bomb":\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\nprint("fine")';
    const rs = await sb.runEach({ code, inputs: [{ stdin: 'bomb' }, { stdin: 'x' }, { stdin: 'y' }], parallel: 2, timeoutMs: 1500 });
    expect(rs[0].killedReason).toBe('timeout');
    expect(rs.slice(1).map((r) => r.stdout)).toEqual(['fine\n', 'fine\n']);
    await expectCleanNextRun(sb);
  });
});
