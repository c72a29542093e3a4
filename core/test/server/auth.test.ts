/** The auth token of `gem-ts serve`: when it is required, where it comes from, and the real bin using it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseAuthToken, reachableFromOtherMachines, tokenMatches } from '../../src/server/auth.ts';
import { WireClient } from './wireClient.ts';

const BIN = fileURLToPath(new URL('../../bin/gem-ts.js', import.meta.url));

describe('chooseAuthToken', () => {
  it('is off for ipc and loopback binds, generated for binds other machines reach (either transport)', () => {
    for (const e of ['ipc:///tmp/x.sock', 'tcp://127.0.0.1:5555', 'tcp://localhost:0', 'tcp://[::1]:7', 'stream+ipc:///tmp/x.sock', 'stream+tcp://127.0.0.1:0']) {
      expect(reachableFromOtherMachines(e)).toBe(false);
      expect(chooseAuthToken({ endpoint: e, env: {} })).toEqual({ generated: false });
    }
    for (const e of ['tcp://0.0.0.0:5555', 'tcp://*:5555', 'tcp://10.1.2.3:0', 'tcp://[::]:9', 'stream+tcp://0.0.0.0:5555', 'stream+tcp://[::]:9']) {
      expect(reachableFromOtherMachines(e)).toBe(true);
      const c = chooseAuthToken({ endpoint: e, env: {} });
      expect(c.generated).toBe(true);
      expect(c.token).toMatch(/^[\w-]{32}$/);
    }
    expect(chooseAuthToken({ endpoint: 'tcp://0.0.0.0:1', noAuth: true, env: {} })).toEqual({ generated: false });
  });

  it('takes the flag, then the file, then GEM_TS_AUTH_TOKEN; refuses empty tokens and unreadable files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gem-auth-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'from-file\n');
    const env = { GEM_TS_AUTH_TOKEN: 'from-env' };
    expect(chooseAuthToken({ endpoint: 'ipc', token: 'flag', tokenFile: file, env }).token).toBe('flag');
    expect(chooseAuthToken({ endpoint: 'ipc', tokenFile: file, env }).token).toBe('from-file');
    expect(chooseAuthToken({ endpoint: 'ipc', env }).token).toBe('from-env');
    expect(() => chooseAuthToken({ endpoint: 'ipc', token: '', env: {} })).toThrow(/empty/);
    expect(() => chooseAuthToken({ endpoint: 'ipc', tokenFile: join(dir, 'nope'), env: {} })).toThrow(/Cannot read/);
    expect(() => chooseAuthToken({ endpoint: 'ipc', token: 'x', noAuth: true, env: {} })).toThrow(/--no-auth/);
  });

  it('compares tokens exactly', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    for (const bad of ['abd', 'ab', 'abcd', '', 5, null, undefined]) expect(tokenMatches('abc', bad)).toBe(false);
  });
});

describe('gem-ts serve with a token', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGTERM');
    child = undefined;
  });

  it('a tcp bind other machines reach prints a generated token once; without it a client gets UNAUTHORIZED', { timeout: 60_000 }, async () => {
    child = spawn(process.execPath, [BIN, 'serve', '--endpoint', 'tcp://0.0.0.0:0', '--max-envs-per-client', '3'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const first = await new Promise<string>((resolve) => createInterface({ input: child!.stdout! }).once('line', resolve));
    const port = /^GEM_TS_ENDPOINT=tcp:\/\/0\.0\.0\.0:(\d+)$/.exec(first)?.[1];
    expect(port).toBeDefined();
    for (let i = 0; i < 100 && !/auth token/.test(stderr); i++) await new Promise((r) => setTimeout(r, 20));
    const token = /auth token .*: (\S+)\n/.exec(stderr)?.[1];
    expect(token).toBeDefined();
    expect(stderr.split(token!).length - 1).toBe(1); // printed once

    const stranger = new WireClient(`tcp://127.0.0.1:${port}`);
    const refused = await stranger.request({ op: 'hello' });
    expect(refused.header.error.code).toBe('UNAUTHORIZED');
    expect(refused.header.limits).toBeUndefined();
    expect((await stranger.request({ op: 'make', env_ids: 'game:GuessTheNumber-v0' })).header.error.code).toBe('UNAUTHORIZED');
    stranger.close();

    const friend = new WireClient(`tcp://127.0.0.1:${port}`);
    const hello = await friend.ok({ op: 'hello', token });
    expect(hello.header.limits.max_envs_per_client).toBe(3);
    const over = await friend.request({ op: 'make', env_ids: 'game:GuessTheNumber-v0', num_envs: 4 });
    expect(over.header.error).toMatchObject({ code: 'LIMIT_EXCEEDED', data: { limit: 'max_envs_per_client', value: 4, max: 3 } });
    expect((await friend.ok({ op: 'make', env_ids: 'game:GuessTheNumber-v0', num_envs: 3 })).header.num_envs).toBe(3);
    friend.close();
  });
});
