/**
 * `gem-ts serve` stops when it is told to or left alone: the real bin is started, each cause is made
 * to happen (SIGTERM, SIGINT, the parent killed, SIGTERM to `npx gem-ts serve`), and the test checks
 * that the process is gone and its port or ipc path is free again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { uniqueIpc, WireClient } from '../server/wireClient.ts';

const BIN = fileURLToPath(new URL('../../bin/gem-ts.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads a child's stdout from its start: `next(prefix)` resolves with the rest of the first line
 * starting with `prefix`, printed before or after the call (one reader, so no line is missed).
 */
function stdoutLines(child: ChildProcess): { next(prefix: string): Promise<string> } {
  const seen: string[] = [];
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (l) => seen.push(l));
  return {
    next: (prefix) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const line = seen.find((l) => l.startsWith(prefix));
          if (line === undefined) return false;
          lines.off('line', check);
          child.off('exit', onExit);
          resolve(line.slice(prefix.length));
          return true;
        };
        const onExit = (code: number | null) => check() || reject(new Error(`exited (${code}) before printing ${prefix}`));
        if (check()) return;
        if (child.exitCode !== null || child.signalCode !== null) return onExit(child.exitCode);
        lines.on('line', check);
        child.once('exit', onExit);
      }),
  };
}

function lineStartingWith(child: ChildProcess, prefix: string): Promise<string> {
  return stdoutLines(child).next(prefix);
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** True once nothing listens on the port: binding it works again. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** Gone, or a zombie nobody reaped yet (PID 1 in a container may never reap): either way not serving. */
function processGone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, limitMs = 20_000): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > limitMs) throw new Error(`${what}: not after ${limitMs} ms`);
    await sleep(10);
  }
  return Date.now() - t0;
}

async function serveOk(endpoint: string): Promise<void> {
  const c = new WireClient(endpoint);
  try {
    expect((await c.ok({ op: 'make', env_ids: 'game:GuessTheNumber-v0-easy', num_envs: 2 })).header.num_envs).toBe(2);
  } finally {
    c.close();
  }
}

describe('gem-ts serve stops', () => {
  it('on SIGTERM, although its stdin is held open, and frees its tcp port', { timeout: 60_000 }, async () => {
    // stdin open + --exit-with-stdin is how the Python client runs it; before, SIGTERM left it running.
    const child = spawn(process.execPath, [BIN, 'serve', '--endpoint', 'tcp://127.0.0.1:0', '--exit-with-stdin', '--no-auth'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const endpoint = await lineStartingWith(child, 'GEM_TS_ENDPOINT=');
    const port = Number(endpoint.split(':').pop());
    await serveOk(endpoint); // a client made envs: they are freed on the way out
    const t0 = Date.now();
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    console.log(`SIGTERM → exit: ${Date.now() - t0} ms`);
    expect(await portIsFree(port)).toBe(true);
    child.stdin!.destroy();
  });

  it('on SIGINT, and removes its ipc socket file', { timeout: 60_000 }, async () => {
    const endpoint = uniqueIpc();
    const child = spawn(process.execPath, [BIN, 'serve', '--endpoint', endpoint], { stdio: ['ignore', 'pipe', 'inherit'] });
    await lineStartingWith(child, 'GEM_TS_ENDPOINT=');
    await serveOk(endpoint);
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(existsSync(endpoint.slice('ipc://'.length))).toBe(false);
  });

  it('when its parent is killed (nothing passes a signal on)', { timeout: 120_000 }, async () => {
    const endpoint = uniqueIpc();
    // A shell parent that is SIGKILLed: the server gets no signal, only a new parent.
    const sh = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve --endpoint ${endpoint} & echo "SERVER_PID=$!"; wait`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // The server writes to the shell's stdout: its endpoint line says it listens, however slow a
    // loaded machine makes its start (a 20-s poll for the socket file was not always enough in CI).
    const out = stdoutLines(sh);
    const pid = Number(await out.next('SERVER_PID='));
    await out.next('GEM_TS_ENDPOINT=');
    await serveOk(endpoint);
    sh.kill('SIGKILL');
    await exited(sh);
    const ms = await until('server gone after its parent', () => processGone(pid), 60_000);
    console.log(`parent killed → server exit: ${ms} ms`);
    expect(existsSync(endpoint.slice('ipc://'.length))).toBe(false);
  });

  it('--no-exit-with-parent keeps it serving after its parent is gone', { timeout: 120_000 }, async () => {
    const endpoint = uniqueIpc();
    const sh = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve --no-exit-with-parent --endpoint ${endpoint} & echo "SERVER_PID=$!"; wait`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const out = stdoutLines(sh);
    const pid = Number(await out.next('SERVER_PID='));
    await out.next('GEM_TS_ENDPOINT=');
    sh.kill('SIGKILL');
    await exited(sh);
    await sleep(300); // six parent polls
    await serveOk(endpoint);
    process.kill(pid, 'SIGTERM');
    await until('server gone after SIGTERM', () => processGone(pid));
    expect(existsSync(endpoint.slice('ipc://'.length))).toBe(false);
  });

  it('when `npx gem-ts serve` gets SIGTERM: no Node process is left holding the port', { timeout: 120_000 }, async () => {
    // npm exec runs the bin under `sh -c` and does not pass SIGTERM on to it.
    const npx = spawn('npx', ['--no-install', 'gem-ts', 'serve', '--endpoint', 'tcp://127.0.0.1:0', '--no-auth'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const endpoint = await lineStartingWith(npx, 'GEM_TS_ENDPOINT=');
    const port = Number(endpoint.split(':').pop());
    await serveOk(endpoint);
    npx.kill('SIGTERM');
    await exited(npx);
    const ms = await until('port free after SIGTERM to npx', () => portIsFree(port));
    console.log(`SIGTERM to npx → port free: ${ms} ms`);
  });
});
