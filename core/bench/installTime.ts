/**
 * Install anywhere, measured (issue 16), gem-ts against GEM in the same run:
 *  - a fresh venv in an empty folder: seconds from `pip install <gem-ts wheel>` to the first
 *    `reset` returned by a script (`import gem_ts as gem; gem.make(…).reset()`, which starts the
 *    bundled server), against `pip install gem-llm==0.1.0` and GEM's first `reset`; wheel and venv sizes;
 *  - server cold start (spawn → GEM_TS_ENDPOINT printed): the compiled dist/ against today's tsx
 *    start from source, alternating, median of GEM_BENCH_STARTS (default 7) each.
 * Both pip installs use the same pip, index and cache (this machine's local wheels), so the figures
 * compare install + first use, not download speed.
 *
 * Prints a Markdown table and writes core/bench/results/installTime.json.
 *
 *   npm run bench installTime
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = fileURLToPath(new URL('./results/installTime.json', import.meta.url));
const STARTS = Number(process.env.GEM_BENCH_STARTS ?? 7);
const ENV_ID = 'game:GuessTheNumber-v0-easy';
const PYTHON = process.env.PYTHON ?? join(ROOT, '.venv/bin/python');
// Not /tmp: the sandbox mounts its own /tmp, which would hide a venv kept there.
const SCRATCH = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r2 = (x: number) => Math.round(x * 100) / 100;

function must(cmd: string, args: string[], opts: Parameters<typeof spawnSync>[2] = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return String(r.stdout);
}

function duBytes(path: string): number {
  return Number(must('du', ['-sb', path]).split(/\s+/)[0]);
}

/** Fresh venv, pip install `spec`, then `script` (which prints the epoch second its reset returned). */
function installToFirstReset(label: string, spec: string, script: string) {
  const home = mkdtempSync(join(SCRATCH, `gem-bench-${label}-`));
  try {
    const venv = join(home, 'venv');
    must(PYTHON, ['-m', 'venv', '--without-pip', venv]);
    const py = join(venv, 'bin/python');
    const work = join(home, 'project');
    mkdirSync(work);
    const t0 = Date.now() / 1000;
    must(PYTHON, ['-m', 'pip', '--python', py, 'install', '--quiet', '--disable-pip-version-check', spec]);
    const installed = Date.now() / 1000;
    const env = { HOME: process.env.HOME ?? home, PATH: `${join(venv, 'bin')}:/usr/bin:/bin`, LANG: 'C.UTF-8' };
    const out = must(py, ['-c', script], { cwd: work, env });
    const resetAt = Number(out.trim().split('\n').at(-1));
    return { install_s: r2(installed - t0), first_reset_s: r2(resetAt - installed), total_s: r2(resetAt - t0), venv_mb: r2(duBytes(venv) / 1e6) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function coldStart(run: 'dist' | 'src'): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [join(ROOT, 'core/bin/gem-ts.js'), 'serve', '--exit-with-stdin'], {
      env: { ...process.env, GEM_TS_RUN: run },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('GEM_TS_ENDPOINT=')) {
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        child.stdin.end();
        child.on('exit', () => resolve(ms));
      }
    });
    child.on('error', reject);
  });
}

const script = (mod: string) =>
  [`import time, ${mod} as gem`, `env = gem.make(${JSON.stringify(ENV_ID)})`, 'env.reset(seed=0)', 'print(time.time())'].join('\n');

console.log('› building the wheel and the npm tarball (scripts/build-packages.mjs)');
const built = must(process.execPath, [join(ROOT, 'scripts/build-packages.mjs')], { cwd: ROOT });
const whl = built.match(/✓ (\S+\.whl)/)![1];
const tgz = built.match(/✓ (\S+\.tgz)/)![1];

console.log('› gem-ts: fresh venv, pip install <wheel>, first reset');
const gemTs = installToFirstReset('gem-ts', whl, script('gem_ts'));
console.log('› GEM: fresh venv, pip install gem-llm==0.1.0, first reset');
const gem = installToFirstReset('gem', 'gem-llm==0.1.0', script('gem'));

console.log(`› server cold start, ${STARTS}× each (compiled dist/ and tsx from source, alternating)`);
must(process.execPath, [join(ROOT, 'scripts/build-packages.mjs'), '--dist-only'], { cwd: ROOT });
const starts: Record<'dist' | 'src', number[]> = { dist: [], src: [] };
await coldStart('dist'); // warm the file cache for both
await coldStart('src');
for (let i = 0; i < STARTS; i++) for (const k of ['dist', 'src'] as const) starts[k].push(await coldStart(k));

const result = {
  benchmark: 'installTime',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model.split(' ').slice(0, 2).join(' '), node: process.version, loadAverage: r2(loadavg()[0]) },
  env_id: ENV_ID,
  wheel: { file: whl.split('/').at(-1), mb: r2(statSync(whl).size / 1e6) },
  npm_tarball: { file: tgz.split('/').at(-1), mb: r2(statSync(tgz).size / 1e6) },
  fresh_venv: { 'gem-ts': gemTs, 'gem-llm 0.1.0': gem },
  cold_start_ms: {
    compiled: { median: r2(median(starts.dist)), runs: starts.dist.map(r2) },
    tsx: { median: r2(median(starts.src)), runs: starts.src.map(r2) },
  },
};
mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
writeFileSync(OUT, JSON.stringify(result, null, 2) + '\n');

console.log(`\n| fresh venv, ${ENV_ID} | pip install | install → first reset | venv on disk |`);
console.log('|---|---|---|---|');
for (const [name, r] of Object.entries(result.fresh_venv)) console.log(`| ${name} | ${r.install_s} s | ${r.total_s} s | ${r.venv_mb} MB |`);
console.log(`\nwheel ${result.wheel.file}: ${result.wheel.mb} MB; npm tarball: ${result.npm_tarball.mb} MB`);
console.log(
  `server cold start (spawn → endpoint), median of ${STARTS}: compiled ${result.cold_start_ms.compiled.median} ms, ` +
    `tsx ${result.cold_start_ms.tsx.median} ms (${r2(result.cold_start_ms.tsx.median / result.cold_start_ms.compiled.median)}×)`,
);
console.log(`wrote ${OUT}`);
