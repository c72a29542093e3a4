// `npm test`: installs what is missing, then runs every TypeScript and Python test suite.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { adapterDirs, adapterInstallSteps, ensureChromium, ensureGemPeerVenv, ensureIproute, ensureNodeModules, ensureRootVenv, ensureSandbox, ensureVenv, root, run } from './lib.mjs';

ensureNodeModules();
ensureSandbox({ forTests: true });
ensureChromium();
ensureIproute();
// Before vitest: the TypeScript suites drive Python too (reasoning-gym worker, math-verify fixtures).
const py = ensureRootVenv({ extras: 'all' }); // the benchmark and demo tests need their stacks too
ensureGemPeerVenv(); // GEM itself: the drop-in test runs the same user file on GEM and on gem_ts
const failures = [];

console.log('\n━━ TypeScript: ESLint (core/eslint.config.js) ━━');
if (run('npx', ['eslint', 'src', 'test', 'bench'], { cwd: join(root, 'core') }) !== 0) failures.push('eslint');

console.log('\n━━ TypeScript: tsc --noEmit ━━');
if (run('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: join(root, 'core') }) !== 0) failures.push('tsc');

console.log('\n━━ TypeScript (vitest) ━━');
if (run('npx', ['vitest', 'run'], { cwd: join(root, 'core') }) !== 0) failures.push('vitest');

if (py) {
  console.log('\n━━ Python: gem_ts (pytest) ━━');
  const dirs = ['core/python/tests', 'examples/tests'].filter((d) => existsSync(join(root, d)));
  if (run(py, ['-m', 'pytest', '-q', ...dirs]) !== 0) failures.push('pytest gem_ts');

  // ruff.toml and mypy.ini at the root; the packages: gem_ts and every adapter's gem_ts_* package.
  console.log('\n━━ Python: ruff + mypy (core/python, adapters) ━━');
  if (run(py, ['-m', 'ruff', 'check', 'core/python', 'adapters']) !== 0) failures.push('ruff');
  const packages = adapterDirs().flatMap((d) => readdirSync(d).filter((f) => f.startsWith('gem_ts_') && !f.includes('.')).map((f) => join(d, f)));
  if (run(py, ['-m', 'mypy', '--config-file', 'mypy.ini', 'core/python/gem_ts', ...packages]) !== 0) failures.push('mypy');
}

for (const dir of adapterDirs()) {
  const name = dir.split('/').pop();
  console.log(`\n━━ Python: adapter ${name} (pytest, own venv) ━━`);
  const { steps: reqs, dependsOn } = adapterInstallSteps(dir);
  const apy = ensureVenv(join(dir, '.venv'), reqs, dependsOn, { uv: true });
  if (run(apy, ['-m', 'pytest', '-q', join(dir, 'tests')]) !== 0) failures.push(`pytest ${name}`);
}

if (failures.length) {
  console.error(`\n✗ failed: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('\n✓ all test suites passed');
