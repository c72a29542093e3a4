// `npm test`: installs what is missing, then runs every TypeScript and Python test suite.
// `npm run test:quick` (--quick): lint, types, the in-process unit tests and the Python tests that
// start no server, cluster or build — the developer's loop; npm test stays what CI runs.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { adapterDirs, adapterInstallSteps, ensureChromium, ensureGemPeerVenv, ensureIproute, ensureNodeModules, ensureRootVenv, ensureSandbox, ensureVenv, root, run } from './lib.mjs';

const quick = process.argv.includes('--quick');
const started = Date.now();
ensureNodeModules();
let py;
if (quick) {
  py = ensureRootVenv({ extras: ['lint'] });
  process.env.GEM_TS_TEST_TIER = 'quick'; // read by core/vitest.config.ts and core/python/tests/conftest.py
} else {
  ensureSandbox({ forTests: true });
  ensureChromium();
  ensureIproute();
  // Before vitest: the TypeScript suites drive Python too (reasoning-gym worker, math-verify fixtures).
  py = ensureRootVenv({ extras: 'all' }); // the benchmark and demo tests need their stacks too
  ensureGemPeerVenv(); // GEM itself: the drop-in test runs the same user file on GEM and on gem_ts
}
const installed = Date.now();
const failures = [];

console.log('\n━━ TypeScript: ESLint (core/eslint.config.js) ━━');
if (run('npx', ['eslint', 'src', 'test', 'bench'], { cwd: join(root, 'core') }) !== 0) failures.push('eslint');

console.log('\n━━ TypeScript: import layers (dependency-cruiser, core/.dependency-cruiser.cjs) ━━');
if (run('npx', ['depcruise', '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'src'], { cwd: join(root, 'core') }) !== 0) failures.push('dependency-cruiser');

console.log('\n━━ TypeScript: tsc --noEmit ━━');
if (run('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: join(root, 'core') }) !== 0) failures.push('tsc');

console.log('\n━━ TypeScript (vitest) ━━');
if (run('npx', ['vitest', 'run'], { cwd: join(root, 'core') }) !== 0) failures.push('vitest');

if (py) {
  console.log('\n━━ Python: gem_ts (pytest) ━━');
  // The quick tier leaves out examples/tests (they train models) and what the markers name.
  const dirs = (quick ? ['core/python/tests'] : ['core/python/tests', 'examples/tests']).filter((d) => existsSync(join(root, d)));
  const tier = quick ? ['-m', 'not server and not ray and not package and not docs and not peer'] : [];
  if (run(py, ['-m', 'pytest', '-q', ...tier, ...dirs]) !== 0) failures.push('pytest gem_ts');

  // ruff.toml and mypy.ini at the root; the packages: gem_ts and every adapter's gem_ts_* package.
  console.log('\n━━ Python: ruff + mypy (core/python, adapters) ━━');
  if (run(py, ['-m', 'ruff', 'check', 'core/python', 'adapters']) !== 0) failures.push('ruff');
  const packages = adapterDirs().flatMap((d) => readdirSync(d).filter((f) => f.startsWith('gem_ts_') && !f.includes('.')).map((f) => join(d, f)));
  if (run(py, ['-m', 'mypy', '--config-file', 'mypy.ini', 'core/python/gem_ts', ...packages]) !== 0) failures.push('mypy');
  console.log('\n━━ Python: import layers (import-linter, core/python/pyproject.toml) ━━');
  const lintImports = ['-c', 'import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())'];
  if (run(py, [...lintImports, '--config', 'core/python/pyproject.toml']) !== 0) failures.push('import-linter');
}

for (const dir of quick ? [] : adapterDirs()) {
  const name = dir.split('/').pop();
  console.log(`\n━━ Python: adapter ${name} (pytest, own venv) ━━`);
  const { steps: reqs, dependsOn } = adapterInstallSteps(dir);
  const apy = ensureVenv(join(dir, '.venv'), reqs, dependsOn, { uv: true });
  if (run(apy, ['-m', 'pytest', '-q', join(dir, 'tests')]) !== 0) failures.push(`pytest ${name}`);
}

const secs = (t) => `${Math.round((Date.now() - t) / 1000)} s`;
const timing = `${secs(installed)} of tests after ${Math.round((installed - started) / 1000)} s of install checks`;
if (failures.length) {
  console.error(`\n✗ failed: ${failures.join(', ')} (${timing})`);
  process.exit(1);
}
console.log(`\n✓ all ${quick ? 'quick ' : ''}test suites passed (${timing})`);
