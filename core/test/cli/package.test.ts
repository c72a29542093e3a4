/**
 * The npm package as a user gets it: `npm pack` of @gem-ts/core (built by scripts/build-packages.mjs)
 * installed into an empty folder outside the checkout, then its `gem-ts` command (list, play, serve,
 * eval) and its JavaScript + declarations used from there. Nothing of the checkout is on the path:
 * the tarball has no TypeScript source, so the command runs the compiled dist/.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILD = join(ROOT, 'scripts/build-packages.mjs');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

let dir: string;
let bin: string;

function sh(cmd: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', timeout: 120_000, ...opts });
}

beforeAll(() => {
  const built = spawnSync(process.execPath, [BUILD, '--npm-only'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
  expect(built.status, built.stderr + built.stdout).toBe(0);
  const tgz = built.stdout.match(/✓ (\S+\.tgz)/)?.[1];
  expect(tgz, built.stdout).toBeDefined();
  dir = mkdtempSync(join(tmpdir(), 'gem-ts-npm-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  const npm = sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tgz!], { env: { ...process.env, npm_config_loglevel: 'error' } });
  expect(npm.status, npm.stderr).toBe(0);
  bin = join(dir, 'node_modules/.bin/gem-ts');
}, 360_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the @gem-ts/core tarball, installed in an empty folder', () => {
  it('ships compiled JavaScript, declarations and data, no TypeScript source, and needs no tsx', () => {
    const pkg = join(dir, 'node_modules/@gem-ts/core');
    expect(existsSync(join(pkg, 'dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(pkg, 'dist/index.d.ts'))).toBe(true);
    expect(existsSync(join(pkg, 'dist/sandbox/zygote.py'))).toBe(true);
    expect(existsSync(join(pkg, 'dist/envs/reasoning/rgWorker.py'))).toBe(true);
    expect(existsSync(join(pkg, 'data/words'))).toBe(true);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/tsx'))).toBe(false);
  });

  it('gem-ts list', () => {
    const r = sh(bin, ['list']);
    expect(r.status, r.stderr).toBe(0);
    const ids = r.stdout.trim().split('\n');
    expect(ids).toContain('game:GuessTheNumber-v0');
    expect(ids.length).toBeGreaterThan(50);
  });

  it('gem-ts doctor finds the installed Node packages (it used to look only in a checkout)', () => {
    const r = sh(bin, ['doctor']);
    expect(r.stdout, r.stderr).toMatch(/Node packages\s+zeromq \d/);
  });

  it('gem-ts play: a scripted person plays GuessTheNumber to the end of the episode', () => {
    const guesses = Array.from({ length: 10 }, (_, i) => String(i + 1)).join('\n') + '\n';
    const r = sh(bin, ['play', 'game:GuessTheNumber-v0-easy', '--seed', '3'], { input: guesses });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('> 1');
    expect(r.stdout).toMatch(/The episode .* return -?[\d.]+/);
  });

  it('gem-ts serve prints its endpoint and stops when stdin closes', async () => {
    const child = spawn(bin, ['serve', '--exit-with-stdin'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    const endpoint = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        const m = out.match(/GEM_TS_ENDPOINT=(\S+)/);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
    expect(endpoint).toMatch(/^(ipc|tcp):\/\//);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.end();
    expect(await exited).toBe(0);
  }, 60_000);

  it('gem-ts eval against an OpenAI-compatible endpoint', async () => {
    // A stand-in model that always guesses 5.
    let requests = 0;
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: 'My guess is \\boxed{5}' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const child = spawn(bin, ['eval', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm', '--env', 'game:GuessTheNumber-v0-easy', '--episodes', '2', '--max-turns', '3'], {
        cwd: dir,
      });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, out).toBe(0);
      expect(out).toContain('game:GuessTheNumber-v0-easy');
      expect(requests).toBeGreaterThanOrEqual(2);
    } finally {
      server.close();
    }
  }, 60_000);

  it('a cpuBound env steps in a worker thread started from the compiled code', () => {
    writeFileSync(
      join(dir, 'worker.mjs'),
      [
        "import { makeVec } from '@gem-ts/core';",
        "import { fileURLToPath } from 'node:url';",
        "const dataset = fileURLToPath(new URL('./node_modules/@gem-ts/core/data/samples/code.jsonl', import.meta.url));",
        "const v = makeVec('code:CodeContest', { numEnvs: 2, workers: 1, options: { dataset } });",
        'await v.reset({ seed: 0 });',
        "const s = await v.step(['```python\\nprint(1)\\n```', '```python\\nprint(2)\\n```']);",
        'console.log(JSON.stringify({ rewards: Array.from(s.rewards) }));',
        'await v.close();',
      ].join('\n'),
    );
    const r = sh(process.execPath, [join(dir, 'worker.mjs')]);
    expect(r.status, r.stderr).toBe(0);
    const { rewards } = JSON.parse(r.stdout.trim()) as { rewards: number[] };
    expect(rewards).toHaveLength(2);
    for (const x of rewards) expect(typeof x).toBe('number');
  });

  it('TypeScript users: the package imports as ESM and type-checks through its declarations', () => {
    writeFileSync(
      join(dir, 'use.ts'),
      [
        "import { make } from '@gem-ts/core';",
        "const env = make('game:GuessTheNumber-v0-easy');",
        'const first = await env.reset({ seed: 1 });',
        "const next = await env.step('\\\\boxed{5}');",
        'const n: number = next.reward;',
        'console.log(JSON.stringify({ obs: typeof first.observation, reward: n }));',
        'await env.close();',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, outDir: 'out' }, files: ['use.ts'] }),
    );
    const tsc = sh(process.execPath, [TSC, '-p', 'tsconfig.json']);
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
    const r = sh(process.execPath, [join(dir, 'out/use.js')]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ obs: 'string' });
  });
});
