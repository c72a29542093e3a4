// `npm test`: installs what is missing, then runs every TypeScript and Python test suite.
// `npm run test:quick` (--quick): lint, types, the in-process unit tests and the Python tests that
// start no server, cluster or build — the developer's loop; npm test stays what CI runs.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { adapterDirs, ensureChromium, ensureGemPeerVenv, ensureIproute, ensureOpenEnvPeerVenv, ensureNodeModules, ensureRootVenv, ensureSandbox, root, venvPython } from './lib.mjs';
import { runSuites } from './suites.mjs';

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
  if (py) ensureOpenEnvPeerVenv(py); // OpenEnv's own server and clients, for the OpenEnv benchmarks' tests
  process.env.GEM_TS_PEER_VENVS = 'installed'; // so those tests fail, not skip, when a venv is unusable
}
// uv installs no bytecode, and a shell that sets PYTHONDONTWRITEBYTECODE (this project's machines
// do) then makes every Python process compile each module it imports from source: 29 s of CPU for
// each process that imports verl, Ray workers included. Unset, the first import of a module writes
// its .pyc and every later process reads it (8.9 s).
delete process.env.PYTHONDONTWRITEBYTECODE;
const installed = Date.now();
// Reports the suites write, read at the end so that the names of failed tests close the output (CI shows its tail).
const reports = mkdtempSync(join(tmpdir(), 'gem-ts-test-'));
const report = (name) => join(reports, `${name.replace(/\W+/g, '-')}`);
// Caches for the developer's loop (a clean clone, as in CI, starts without them).
const cache = (name) => join(root, 'node_modules', '.cache', name);

/** A suite of one command (see suites.mjs). */
const one = (name, heading, cmd, args, opts) => ({ name, heading, steps: [[cmd, args, opts]] });
/** A linter's suite: one process, no servers, so it may run beside the Ray cluster (see suites.mjs). */
const lint = (...args) => ({ ...one(...args), light: true });
const core = { cwd: join(root, 'core') };
const suites = [];
const vitest = one('vitest', 'TypeScript (vitest)', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report('vitest')}.json`], core);
if (py) {
  // gem_ts's tests in four suites so that two cores share them out: the longest first, so that it
  // never starts last; the Ray cluster runs alone, after the others (beside the linters). The quick
  // tier runs only what the markers leave (no server, cluster, wheel build, doc block or peer) and
  // not examples/tests (they train models).
  const pytest = (name, heading, args, extra = {}) => ({ ...one(name, heading, py, ['-m', 'pytest', '-q', `--junit-xml=${report(name)}.xml`, ...args]), ...extra });
  if (quick) {
    suites.push(pytest('pytest gem_ts', 'Python: gem_ts (pytest)', ['-m', 'not server and not ray and not package and not docs and not peer', 'core/python/tests']));
  } else {
    suites.push(pytest('pytest gem_ts', 'Python: gem_ts (pytest, all but Ray and the docs)', ['-m', 'not ray and not docs', 'core/python/tests']));
    suites.push(vitest);
    suites.push(pytest('pytest gem_ts docs', "Python: the README's and docs' code blocks (pytest, Sybil)", ['-m', 'docs and not ray', 'core/python/tests']));
    if (existsSync(join(root, 'examples/tests'))) suites.push(pytest('pytest examples', 'Python: examples (pytest: the benchmark trains)', ['examples/tests']));
    suites.push(pytest('pytest gem_ts ray', 'Python: gem_ts on a Ray cluster (pytest, run alone)', ['-m', 'ray', 'core/python/tests'], { alone: true }));
  }
}
if (!suites.includes(vitest)) suites.push(vitest);
suites.push(
  lint('eslint', 'TypeScript: ESLint (core/eslint.config.js)', 'npx', ['eslint', '--cache', '--cache-location', cache('eslint/'), 'src', 'test', 'bench'], core),
  lint('dependency-cruiser', 'TypeScript: import layers (dependency-cruiser, core/.dependency-cruiser.cjs)', 'npx', ['depcruise', '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'src'], core),
  lint('tsc', 'TypeScript: tsc --noEmit', 'npx', ['tsc', '--noEmit', '--incremental', '--tsBuildInfoFile', cache('tsc.tsbuildinfo'), '-p', '.'], core),
);
if (py) {
  // ruff.toml and mypy.ini at the root; the packages: gem_ts and every adapter's gem_ts_* package.
  suites.push(lint('ruff', 'Python: ruff (core/python, adapters)', py, ['-m', 'ruff', 'check', 'core/python', 'adapters']));
  const packages = adapterDirs().flatMap((d) => readdirSync(d).filter((f) => f.startsWith('gem_ts_') && !f.includes('.')).map((f) => join(d, f)));
  suites.push(lint('mypy', 'Python: mypy (core/python, adapters)', py, ['-m', 'mypy', '--config-file', 'mypy.ini', 'core/python/gem_ts', ...packages]));
  const lintImports = ['-c', 'import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())'];
  suites.push(lint('import-linter', 'Python: import layers (import-linter, core/python/pyproject.toml)', py, [...lintImports, '--config', 'core/python/pyproject.toml']));
}
// Each adapter in its own venv (their pins clash): the install is the suite's first step. verl's
// suite is the longest (its imports), so it goes first.
const byLength = (d) => (d.endsWith('/verl') ? 0 : 1);
for (const dir of quick ? [] : adapterDirs().sort((a, b) => byLength(a) - byLength(b))) {
  const name = `pytest ${dir.split('/').pop()}`;
  suites.push({
    name,
    heading: `Python: adapter ${dir.split('/').pop()} (pytest, own venv)`,
    steps: [
      [process.execPath, [join(root, 'scripts/ensure-adapter-venv.mjs'), dir]],
      [venvPython(join(dir, '.venv')), ['-m', 'pytest', '-q', `--junit-xml=${report(name)}.xml`, join(dir, 'tests')]],
    ],
  });
}

// Two at a time on two cores by default (GEM_TS_TEST_JOBS=1 runs them one by one).
const jobs = Number(process.env.GEM_TS_TEST_JOBS) || availableParallelism();
console.log(`\n${suites.length} suites, ${jobs} at a time`);
const results = await runSuites(suites, { jobs, logDir: reports });
const failures = results.filter((r) => r.status !== 0).map((r) => r.name);

const secs = (t) => `${Math.round((Date.now() - t) / 1000)} s`;
console.log(`\n${results.map((r) => `${r.name} ${r.secs} s`).join(' · ')}`);
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
        const failed = (f.assertionResults ?? []).filter((a) => a.status === 'failed').map((a) => `${file} > ${a.fullName}${why(a.failureMessages?.[0])}`);
        return failed.length || f.status !== 'failed' ? failed : [`${file}: ${(f.message ?? '').split('\n')[0]}`];
      });
    }
    if (existsSync(`${base}.xml`)) {
      const xml = readFileSync(`${base}.xml`, 'utf8');
      return [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"[^>]*>\s*<(failure|error)(?: message="([^"]*)")?/g)].map((m) => `${m[1]}::${m[2]} (${m[3]})${why(unescapeXml(m[4]))}`);
    }
  } catch (e) {
    return [`(its report could not be read: ${e.message})`];
  }
  return [];
}

/** The first line of a failure's message, so that CI's tail says why as well as what (the log is far above). */
function why(message) {
  const first = (message ?? '').split('\n').find((l) => l.trim());
  return first ? `: ${first.trim().slice(0, 300)}` : '';
}

function unescapeXml(text) {
  const named = { quot: '"', apos: "'", lt: '<', gt: '>', amp: '&' };
  return text?.replace(/&(#\d+|quot|apos|lt|gt|amp);/g, (_, e) => (e[0] === '#' ? String.fromCharCode(Number(e.slice(1))) : named[e]));
}
