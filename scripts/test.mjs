// `npm test`: installs what is missing, then runs every TypeScript and Python test suite.
// `npm run test:quick` (--quick): lint, types, the in-process unit tests and the Python tests that
// start no server, cluster or build — the developer's loop; npm test stays what CI runs.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
const timings = [];
/** Runs one suite under a heading, records its time, and its name among the failures when it fails. */
function suite(name, heading, cmd, args, opts) {
  console.log(`\n━━ ${heading} ━━`);
  const t0 = Date.now();
  const status = run(cmd, args, opts);
  timings.push([name, Math.round((Date.now() - t0) / 1000)]);
  if (status !== 0) failures.push(name);
}
// Reports the suites write, read at the end so that the names of failed tests close the output (CI shows its tail).
const reports = mkdtempSync(join(tmpdir(), 'gem-ts-test-'));
const report = (name) => join(reports, `${name.replace(/\W+/g, '-')}`);
// Caches for the developer's loop (a clean clone, as in CI, starts without them).
const cache = (name) => join(root, 'node_modules', '.cache', name);

const core = { cwd: join(root, 'core') };
suite('eslint', 'TypeScript: ESLint (core/eslint.config.js)', 'npx', ['eslint', '--cache', '--cache-location', cache('eslint/'), 'src', 'test', 'bench'], core);
suite('dependency-cruiser', 'TypeScript: import layers (dependency-cruiser, core/.dependency-cruiser.cjs)', 'npx', ['depcruise', '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'src'], core);
suite('tsc', 'TypeScript: tsc --noEmit', 'npx', ['tsc', '--noEmit', '--incremental', '--tsBuildInfoFile', cache('tsc.tsbuildinfo'), '-p', '.'], core);
suite('vitest', 'TypeScript (vitest)', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report('vitest')}.json`], core);

if (py) {
  // The quick tier leaves out examples/tests (they train models) and what the markers name.
  const dirs = (quick ? ['core/python/tests'] : ['core/python/tests', 'examples/tests']).filter((d) => existsSync(join(root, d)));
  const tier = quick ? ['-m', 'not server and not ray and not package and not docs and not peer'] : [];
  suite('pytest gem_ts', 'Python: gem_ts (pytest)', py, ['-m', 'pytest', '-q', `--junit-xml=${report('pytest gem_ts')}.xml`, ...tier, ...dirs]);

  // ruff.toml and mypy.ini at the root; the packages: gem_ts and every adapter's gem_ts_* package.
  suite('ruff', 'Python: ruff (core/python, adapters)', py, ['-m', 'ruff', 'check', 'core/python', 'adapters']);
  const packages = adapterDirs().flatMap((d) => readdirSync(d).filter((f) => f.startsWith('gem_ts_') && !f.includes('.')).map((f) => join(d, f)));
  suite('mypy', 'Python: mypy (core/python, adapters)', py, ['-m', 'mypy', '--config-file', 'mypy.ini', 'core/python/gem_ts', ...packages]);
  const lintImports = ['-c', 'import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())'];
  suite('import-linter', 'Python: import layers (import-linter, core/python/pyproject.toml)', py, [...lintImports, '--config', 'core/python/pyproject.toml']);
}

for (const dir of quick ? [] : adapterDirs()) {
  const name = dir.split('/').pop();
  const { steps: reqs, dependsOn } = adapterInstallSteps(dir);
  const t0 = Date.now();
  const apy = ensureVenv(join(dir, '.venv'), reqs, dependsOn, { uv: true });
  timings.push([`install ${name}`, Math.round((Date.now() - t0) / 1000)]);
  suite(`pytest ${name}`, `Python: adapter ${name} (pytest, own venv)`, apy, ['-m', 'pytest', '-q', `--junit-xml=${report(`pytest ${name}`)}.xml`, join(dir, 'tests')]);
}

const secs = (t) => `${Math.round((Date.now() - t) / 1000)} s`;
console.log(`\n${timings.map(([n, t]) => `${n} ${t} s`).join(' · ')}`);
const timing = `${secs(installed)} of tests after ${Math.round((installed - started) / 1000)} s of install checks`;
if (failures.length) {
  for (const name of failures) for (const t of failedTests(name)) console.error(`  ✗ ${name}: ${t}`);
  console.error(`\n✗ failed: ${failures.join(', ')} (${timing})`);
  process.exit(1);
}
console.log(`\n✓ all ${quick ? 'quick ' : ''}test suites passed (${timing})`);

/** The failed tests a suite's report names (vitest's JSON, pytest's JUnit XML); none when it wrote none. */
function failedTests(name) {
  const base = report(name);
  try {
    if (existsSync(`${base}.json`)) {
      const { testResults = [] } = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
      return testResults.flatMap((f) => {
        const file = f.name.slice(join(root, 'core').length + 1);
        const failed = (f.assertionResults ?? []).filter((a) => a.status === 'failed').map((a) => `${file} > ${a.fullName}`);
        return failed.length || f.status !== 'failed' ? failed : [`${file}: ${(f.message ?? '').split('\n')[0]}`];
      });
    }
    if (existsSync(`${base}.xml`)) {
      const xml = readFileSync(`${base}.xml`, 'utf8');
      return [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"[^>]*>\s*<(failure|error)/g)].map((m) => `${m[1]}::${m[2]} (${m[3]})`);
    }
  } catch (e) {
    return [`(its report could not be read: ${e.message})`];
  }
  return [];
}
