/**
 * The path a person takes: `gem-ts eval … --out runs/x`, then `gem-ts ui runs/x` (both spawned as
 * the real command); the UI lists the run's episodes and serves each one; Ctrl-C (SIGINT) stops it.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/ui.ts';
import { binarySearchPolicy, startMockServer } from '../eval/mockChatServer.ts';

const BIN = join(__dirname, '../../bin/gem-ts.js');
const dir = mkdtempSync(join(tmpdir(), 'gem-ui-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000, env: { ...process.env, OPENAI_API_KEY: '' } }, (error, out, err) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out, err });
    });
  });
}

describe('gem-ts ui', () => {
  it('parses its flags and refuses bad ones', () => {
    expect(parseArgs(['--port', '0', 'a', 'b'])).toEqual({ port: 0, playDir: 'runs/ui-play', paths: ['a', 'b'] });
    expect(parseArgs(['--play-dir=p'])).toMatchObject({ port: 8377, playDir: 'p' });
    expect(() => parseArgs(['--port', 'x'])).toThrow(/--port needs a port number/);
    expect(() => parseArgs(['--nope'])).toThrow(/unknown flag --nope/);
  });

  it('from gem-ts eval --out runs/x to gem-ts ui runs/x', async () => {
    const mock = await startMockServer({ policy: binarySearchPolicy });
    const out = join(dir, 'runs', 'x');
    try {
      const ev = await run(['eval', '--base-url', mock.url, '--model', 'm', '--env', 'game:GuessTheNumber-v0-easy', '--episodes', '3', '--out', out, '--quiet']);
      expect(ev.code, ev.err).toBe(0);
    } finally {
      await mock.close();
    }
    const child = spawn(process.execPath, [BIN, 'ui', '--port', '0', '--play-dir', join(dir, 'play'), out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        stdout += c;
        const m = /open (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`gem-ts ui exited ${code}: ${stderr}`)));
    });
    expect(stdout).toContain(`opened x (${out})`);
    const page = (await (await fetch(`${url}/api/runs/x/episodes`)).json()) as { rows: { seed: number }[] };
    // Episodes are written in the order they finish.
    expect(page.rows.map((r: { seed: number }) => r.seed).sort()).toEqual([0, 1, 2]);
    const ep = (await (await fetch(`${url}/api/runs/x/episodes/1`)).json()) as { record: unknown };
    expect(ep.record).toMatchObject({ env_id: 'game:GuessTheNumber-v0-easy', model: 'm', success: true });
    expect(await (await fetch(`${url}/`)).text()).toContain('<title>gem-ts ui</title>');
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (c) => resolve(c));
      child.kill('SIGINT');
    });
    expect(code).toBe(0);
  }, 90_000);

  it('exits 2 when nothing it was given can be opened', async () => {
    const r = await run(['ui', '--port', '0', join(dir, 'no-such-run')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no-such-run: no such file or folder/);
  });

  it('stops when whoever started it is killed (npx passes no SIGTERM on)', async () => {
    // sh stands in for `npm exec` → `sh -c`: it starts the UI, prints its pid, and is killed -9.
    const sh = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" ui --port 0 --play-dir "${join(dir, 'orphan')}" & echo $!; wait`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    sh.stdout.on('data', (b: Buffer) => (out += b.toString()));
    await until(() => /open http/.test(out), 60_000);
    const pid = Number(out.split('\n')[0]);
    expect(alive(pid)).toBe(true);
    sh.kill('SIGKILL');
    await until(() => !alive(pid), 20_000);
    expect(alive(pid)).toBe(false);
  }, 90_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(ok: () => boolean, ms: number): Promise<void> {
  for (const t0 = Date.now(); !ok() && Date.now() - t0 < ms; ) await new Promise((r) => setTimeout(r, 100));
}
