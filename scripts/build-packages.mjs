// `node scripts/build-packages.mjs [--dist-only | --npm-only] [--out DIR] [--force]`: builds what a user installs.
//   1. core/dist/: the compiled @gem-ts/core (tsc -p core/tsconfig.build.json, plus the Python and
//      other non-TypeScript files that sit next to the sources and are found relative to them);
//   2. DIR/gem-ts-core-<version>.tgz: `npm pack` of @gem-ts/core (bin, dist, data; no TypeScript source);
//   3. DIR/gem_ts-<version>-py3-none-<platform>.whl: the Python client with that package and its
//      production node_modules (zeromq's native addon for this platform only) under gem_ts/_server.
// DIR defaults to core/.packages/. Each step is skipped when its inputs have not changed (a stamp of
// their hashes), so tests can call this freely. Only Node built-ins here, plus npm and Python.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const core = join(root, 'core');
const python = join(core, 'python');

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: root, ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
  return r;
}

function walk(dir, skip = () => false) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (skip(p, e)) continue;
    if (e.isDirectory()) out.push(...walk(p, skip));
    else if (e.isFile()) out.push(p);
  }
  return out.sort();
}

function hashOf(files) {
  const h = createHash('sha256');
  for (const f of files) h.update(relative(root, f)).update('\0').update(readFileSync(f));
  return h.digest('hex');
}

/** Runs `build` unless `stampFile` already holds the hash of `inputs` (and `output` exists). */
function cached(stampFile, output, inputs, force, build) {
  const want = hashOf(inputs);
  if (!force && existsSync(output) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === want) return false;
  build();
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, want);
  return true;
}

const coreInputs = () => [
  ...walk(join(core, 'src')),
  ...walk(join(core, 'data')),
  ...walk(join(core, 'bin')),
  join(core, 'tsconfig.json'),
  join(core, 'tsconfig.build.json'),
  join(core, 'package.json'),
];

/** core/dist: JavaScript + declarations, and the non-TypeScript files (zygote.py, rgWorker.py, …). */
export function buildDist({ force = false } = {}) {
  const dist = join(core, 'dist');
  return cached(join(core, '.packages', '.dist-stamp'), join(dist, 'cli/main.js'), coreInputs(), force, () => {
    console.log('› compiling @gem-ts/core to core/dist (tsc -p tsconfig.build.json)');
    rmSync(dist, { recursive: true, force: true });
    sh(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(core, 'tsconfig.build.json')]);
    const src = join(core, 'src');
    for (const f of walk(src).filter((f) => !f.endsWith('.ts'))) cpSync(f, join(dist, relative(src, f)));
  });
}

function version() {
  return JSON.parse(readFileSync(join(core, 'package.json'), 'utf8')).version;
}

export const tarballPath = (out) => join(out, `gem-ts-core-${version()}.tgz`);

/** `npm pack` of @gem-ts/core into `out`; returns the tarball's path. */
export function packNpm(out, { force = false } = {}) {
  buildDist({ force });
  const tgz = tarballPath(out);
  cached(join(out, '.npm-stamp'), tgz, coreInputs(), force, () => {
    console.log(`› npm pack @gem-ts/core → ${relative(root, tgz)}`);
    mkdirSync(out, { recursive: true });
    sh('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', out], { cwd: core, stdio: ['ignore', 'ignore', 'inherit'] });
  });
  return tgz;
}

/** Production install of the tarball in a scratch folder, trimmed to what this platform runs. */
function stageServer(tgz, stage) {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  writeFileSync(join(stage, 'package.json'), JSON.stringify({ name: 'gem-ts-server-bundle', private: true }));
  console.log('› npm install --omit=dev (the server bundle for the wheel)');
  sh('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts', tgz], {
    cwd: stage,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const modules = join(stage, 'node_modules');
  rmSync(join(modules, '.bin'), { recursive: true, force: true });
  rmSync(join(modules, '.package-lock.json'), { force: true });
  // zeromq ships prebuilt addons for every OS and CPU; the wheel is for this one.
  const zmqBuild = join(modules, 'zeromq/build');
  if (existsSync(zmqBuild)) {
    for (const os of readdirSync(zmqBuild)) {
      const osDir = join(zmqBuild, os);
      if (!statSync(osDir).isDirectory()) continue;
      if (os !== process.platform) rmSync(osDir, { recursive: true, force: true });
      else for (const arch of readdirSync(osDir)) if (arch !== process.arch) rmSync(join(osDir, arch), { recursive: true, force: true });
    }
    if (!existsSync(join(zmqBuild, process.platform, process.arch))) throw new Error(`zeromq has no prebuilt addon for ${process.platform}/${process.arch}`);
  }
  // Not needed to run: TypeScript declarations, source maps and docs of the dependencies.
  for (const f of walk(modules)) if (/\.(d\.[cm]?ts|map|md|markdown)$/i.test(f) && !f.includes('/@gem-ts/core/')) rmSync(f);
  return modules;
}

function findPython() {
  for (const cand of [process.env.PYTHON, join(root, '.venv/bin/python'), 'python3', 'python']) {
    if (!cand) continue;
    const r = spawnSync(cand, ['-c', 'import setuptools, sys; assert sys.version_info >= (3, 10)'], { stdio: 'ignore' });
    if (r.status === 0) return cand;
  }
  throw new Error('building the wheel needs Python >= 3.10 with setuptools (set PYTHON=/path/to/python3)');
}

/** The self-contained wheel in `out`; returns its path. */
export function buildWheel(out, { force = false } = {}) {
  const tgz = packNpm(out, { force });
  const pyInputs = walk(python, (p, e) => e.isDirectory() && /(^|\/)(tests|__pycache__|build|\.pytest_cache|.*\.egg-info)$/.test(p));
  const stampFile = join(out, '.wheel-stamp');
  const find = () => (existsSync(out) ? readdirSync(out).find((f) => f.startsWith('gem_ts-') && f.endsWith('.whl')) : undefined);
  const inputs = [tgz, ...pyInputs];
  const want = hashOf(inputs);
  const have = find();
  if (!force && have && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === want) return join(out, have);
  for (const f of readdirSync(out)) if (f.endsWith('.whl')) rmSync(join(out, f));

  // Build from a staged copy: the checkout's own gem_ts must never see a bundled _server (a stale
  // bundle would shadow the checkout's live sources for editable installs).
  const work = join(out, 'wheel-src');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const f of pyInputs) cpSync(f, join(work, relative(python, f)));
  const modules = stageServer(tgz, join(out, 'server-stage'));
  cpSync(modules, join(work, 'gem_ts/_server/node_modules'), { recursive: true });
  console.log('› pip wheel (gem-ts with the bundled server)');
  sh(findPython(), ['-m', 'pip', 'wheel', '--quiet', '--no-deps', '--no-build-isolation', '--disable-pip-version-check', '-w', out, work]);
  rmSync(work, { recursive: true, force: true });
  rmSync(join(work, '..', 'server-stage'), { recursive: true, force: true });
  writeFileSync(stampFile, want);
  const whl = find();
  if (!whl) throw new Error('pip wheel produced no gem_ts-*.whl');
  return join(out, whl);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const outIdx = args.indexOf('--out');
  const out = resolve(outIdx >= 0 ? args[outIdx + 1] : join(core, '.packages'));
  try {
    if (args.includes('--dist-only')) {
      buildDist({ force });
      console.log(`✓ ${relative(process.cwd(), join(core, 'dist')) || '.'}`);
    } else if (args.includes('--npm-only')) {
      const tgz = packNpm(out, { force });
      console.log(`✓ ${tgz}  (${(statSync(tgz).size / 1e6).toFixed(1)} MB)`);
    } else {
      const whl = buildWheel(out, { force });
      const tgz = tarballPath(out); // built by buildWheel
      for (const f of [tgz, whl]) console.log(`✓ ${f}  (${(statSync(f).size / 1e6).toFixed(1)} MB)`);
    }
  } catch (e) {
    console.error(`✗ build-packages: ${e.message}`);
    process.exit(1);
  }
}
