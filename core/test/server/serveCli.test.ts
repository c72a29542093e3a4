/** `gem-ts serve` as the Python client runs it: the real bin, the endpoint line, stop on stdin close. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { uniqueIpc, WireClient } from './wireClient.ts';

const BIN = fileURLToPath(new URL('../../bin/gem-ts.js', import.meta.url));

describe('gem-ts serve', () => {
  it('prints the endpoint, serves, and stops when its stdin closes', { timeout: 60_000 }, async () => {
    const endpoint = uniqueIpc();
    const child = spawn(process.execPath, [BIN, 'serve', '--endpoint', endpoint, '--exit-with-stdin', '--idle-timeout-ms', '1234'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    expect(first).toBe(`GEM_TS_ENDPOINT=${endpoint}`);
    const c = new WireClient(endpoint);
    const hello = await c.ok({ op: 'hello' });
    expect(hello.header.limits.idle_timeout_ms).toBe(1234);
    c.close();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin!.end();
    expect(await exited).toBe(0);
    expect(existsSync(endpoint.slice('ipc://'.length))).toBe(false); // socket file removed
  });

  it('refuses bad arguments with exit code 2 and says why', () => {
    const bad = (args: string[]) => spawnSync(process.execPath, [BIN, 'serve', ...args], { encoding: 'utf8', timeout: 20_000 });
    expect(bad(['--max-message-bytes', 'lots'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/non-negative integer/) });
    expect(bad(['--log-level', 'loud'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/--log-level must be one of/) });
    expect(bad(['--bogus'])).toMatchObject({ status: 2 });
    expect(bad(['--endpoint', 'http://x'])).toMatchObject({ status: 2, stderr: expect.stringMatching(/ipc:\/\/\/path/) });
    // A value that looks like a flag: refused, with the reason and its fix after the usage, where the
    // 20 lines of stderr a launcher keeps (the Python client's) still show them.
    const dashed = bad(['--auth-token', '-starts-with-a-dash']);
    expect(dashed.status).toBe(2);
    const kept = dashed.stderr.trimEnd().split('\n').slice(-20).join('\n');
    expect(kept).toMatch(/gem-ts serve: .*--auth-token/);
    expect(kept).toMatch(/--auth-token=-XYZ/);
    expect(dashed.stderr.indexOf('usage:')).toBeLessThan(dashed.stderr.indexOf('gem-ts serve: '));
  });

  it('takes a token that starts with a dash in the --auth-token=TOKEN form', { timeout: 60_000 }, async () => {
    const endpoint = uniqueIpc();
    const token = '-starts-with-a-dash';
    const child = spawn(process.execPath, [BIN, 'serve', '--endpoint', endpoint, '--exit-with-stdin', `--auth-token=${token}`], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    expect(first).toBe(`GEM_TS_ENDPOINT=${endpoint}`);
    const stranger = new WireClient(endpoint);
    expect((await stranger.request({ op: 'hello' })).header.error.code).toBe('UNAUTHORIZED');
    stranger.close();
    const friend = new WireClient(endpoint);
    expect((await friend.ok({ op: 'hello', token })).header.limits).toBeDefined();
    friend.close();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin!.end();
    expect(await exited).toBe(0);
  });
});
