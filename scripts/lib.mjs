// Shared set-up steps for `npm test`, `npm run demo` and `npm run bench`. Only Node built-ins here:
// these scripts run on a fresh clone before anything is installed.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { basename, join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

export function mustRun(cmd, args, opts = {}) {
  const status = run(cmd, args, opts);
  if (status !== 0) {
    console.error(`\n✗ ${cmd} ${args.join(' ')} exited with ${status}`);
    process.exit(status);
  }
}

function hashFiles(files) {
  const h = createHash('sha256');
  for (const f of files) if (existsSync(f)) h.update(f).update(readFileSync(f));
  return h.digest('hex');
}

/** `npm ci` when node_modules is missing or the lockfile changed since the last install. */
export function ensureNodeModules() {
  const stamp = join(root, 'node_modules', '.gem-ts-stamp');
  const want = hashFiles([join(root, 'package-lock.json')]);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return;
  console.log('› installing Node dependencies (npm ci)…');
  mustRun('npm', ['ci', '--no-audit', '--no-fund']);
  writeFileSync(stamp, want);
}

export function findPython() {
  for (const cand of [process.env.PYTHON, 'python3', 'python']) {
    if (!cand) continue;
    const r = spawnSync(cand, ['-c', 'import sys; print(sys.version_info >= (3, 10))'], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() === 'True') return cand;
  }
  console.error('gem-ts needs Python 3.10 or newer on PATH (or set PYTHON=/path/to/python3).');
  process.exit(1);
}

export function venvPython(venv) {
  return join(venv, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
}

/**
 * Creates `venv` if needed and pip-installs `requirements` (pip argument lists) when the files they
 * depend on changed since the last install. Returns the venv's python.
 *
 * `{ uv: true }` installs with uv (pip-installed into the venv; several times faster on the large
 * trainer stacks), passing pip's configured find-links along so local wheels (the CPU torch) win;
 * steps with pip-only flags (--ignore-requires-python) still go through pip.
 */
export function ensureVenv(venv, requirements, dependsOn, opts = {}) {
  const py = venvPython(venv);
  const stamp = join(venv, opts.stamp ?? '.gem-ts-stamp');
  const want = hashFiles(dependsOn) + JSON.stringify(requirements) + (opts.uv ? 'uv' : '');
  if (existsSync(py) && existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return py;
  if (!existsSync(py)) {
    console.log(`› creating ${venv}`);
    mustRun(findPython(), ['-m', 'venv', venv]);
  }
  const pip = (args) => mustRun(py, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...args]);
  let uv;
  if (opts.uv) {
    pip(['uv==0.13.9']);
    const links = spawnSync(py, ['-m', 'pip', 'config', 'get', 'global.find-links'], { encoding: 'utf8' });
    const findLinks = links.status === 0 ? links.stdout.trim().split(/\s+/).filter(Boolean) : [];
    const uvBin = join(dirname(py), 'uv');
    uv = (args) => mustRun(uvBin, ['pip', 'install', '--quiet', '--python', py, ...findLinks.flatMap((l) => ['--find-links', l]), ...args]);
  }
  for (const args of requirements) {
    const viaPip = !uv || args.includes('--ignore-requires-python');
    console.log(`› ${viaPip ? 'pip' : 'uv pip'} install ${args.join(' ')}`);
    (viaPip ? pip : uv)(args);
  }
  writeFileSync(stamp, want);
  return py;
}

/**
 * The root .venv: the gem_ts client (editable) with its test extras, plus every requirements file in
 * scripts/requirements/ (what the envs need: graders, reasoning-gym, datasets). `extras` adds files
 * of scripts/requirements/extras/ by name ('bench', 'lint', 'ray', 'search-bench'; 'all' for every
 * one), installed on first use, each with its own stamp so one never reinstalls another: `npm run
 * setup` and the demo install only what they run (the demo's venv held lint and Ray packages it
 * never used), `npm test` installs all.
 */
export function ensureRootVenv({ extras = [] } = {}) {
  const plan = rootVenvPlan({ extras });
  if (!plan) return undefined;
  const py = ensureVenv(plan.venv, plan.base, plan.baseFiles);
  for (const file of plan.extraFiles) {
    ensureVenv(plan.venv, [['-r', file]], [file], { stamp: `.gem-ts-stamp-${basename(file, '.txt')}` });
  }
  return py;
}

/** What ensureRootVenv installs for `extras`: the base pip steps and the extra requirement files. */
export function rootVenvPlan({ extras = [] } = {}) {
  const pyproject = join(root, 'core/python/pyproject.toml');
  if (!existsSync(pyproject)) return undefined;
  const txt = (dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.txt')).sort() : []);
  const reqDir = join(root, 'scripts/requirements');
  const reqFiles = txt(reqDir).map((f) => join(reqDir, f));
  const extrasDir = join(reqDir, 'extras');
  const known = txt(extrasDir).map((f) => f.slice(0, -4));
  const wanted = extras === 'all' ? known : extras;
  for (const name of wanted) {
    if (!known.includes(name)) throw new Error(`no requirements file scripts/requirements/extras/${name}.txt (have: ${known.join(', ')})`);
  }
  return {
    venv: join(root, '.venv'),
    base: [['-e', `${join(root, 'core/python')}[test]`], ...reqFiles.map((f) => ['-r', f])],
    baseFiles: [pyproject, ...reqFiles],
    extraFiles: wanted.map((name) => join(extrasDir, `${name}.txt`)),
  };
}

/**
 * pip steps for one adapter's venv, in order: its requirements-pre.txt (torch==2.13.0, so that no
 * later step resolves a CUDA torch), the gem_ts client, the shared adapter kit, its
 * requirements-nodeps.txt installed with --no-deps --ignore-requires-python (trainers whose declared
 * GPU stack or Python bound cannot install here), then the adapter itself with its [test] extra.
 */
export function adapterInstallSteps(dir) {
  const kit = join(root, 'adapters/kit');
  const pre = join(dir, 'requirements-pre.txt');
  const nodeps = join(dir, 'requirements-nodeps.txt');
  const steps = [];
  if (existsSync(pre)) steps.push(['-r', pre]);
  steps.push(['-e', join(root, 'core/python')]);
  if (resolve(dir) !== resolve(kit)) steps.push(['-e', kit]);
  if (existsSync(nodeps)) steps.push(['--no-deps', '--ignore-requires-python', '-r', nodeps]);
  steps.push(['-e', `${dir}[test]`]);
  const dependsOn = [pre, nodeps, join(dir, 'pyproject.toml'), join(kit, 'pyproject.toml'), join(root, 'core/python/pyproject.toml')];
  return { steps, dependsOn };
}

/** Adapter packages: every adapters/<name>/ with a pyproject.toml gets its own venv (their pins clash). */
export function adapterDirs() {
  const dir = join(root, 'adapters');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((n) => join(dir, n))
    .filter((d) => existsSync(join(d, 'pyproject.toml')));
}

/**
 * The Python sandbox (python_tool, code envs) needs bubblewrap. Install it from the distribution when
 * we can (root + apt-get). Where we cannot, say loudly what that disables; for the test run
 * (`{ forTests: true }`) the sandbox tests then skip and code-running tests run unsandboxed.
 */
export function ensureSandbox({ forTests = false } = {}) {
  const has = () => spawnSync('bwrap', ['--version'], { stdio: 'ignore' }).status === 0;
  if (has()) return true;
  if (aptInstall('bubblewrap', 'for the Python sandbox') && has()) return true;
  if (forTests) {
    console.warn('⚠ bubblewrap is not available: sandbox tests skip and code tests run UNSANDBOXED.');
    process.env.GEM_TS_ALLOW_UNSANDBOXED = '1';
  } else {
    console.warn(
      '⚠ bubblewrap (bwrap) is not installed and could not be installed here (needs root and apt-get).\n' +
        '  Without it python_tool and the code:* envs refuse to run code. Install it: sudo apt-get install bubblewrap\n' +
        '  (or your distribution\'s bubblewrap package), then check with: npx gem-ts doctor',
    );
  }
  return false;
}

/** apt-get install `pkg` when we can (root + apt-get), with an apt-get update first if it fails. */
function aptInstall(pkg, why) {
  const isRoot = process.getuid?.() === 0;
  const apt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !apt) return false;
  console.log(`› installing ${pkg} (apt-get) ${why}…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Without recommends: Chromium's pulled in ~3,600 packages' closure (systemd, perl, samba, cups…)
  // against ~460 for what it needs; the fonts the pages render with (DejaVu) come with fontconfig.
  const install = ['install', '-y', '-q', '--no-install-recommends', pkg];
  if (run('apt-get', install, { env }) === 0) return true;
  run('apt-get', ['update', '-q'], { env });
  return run('apt-get', install, { env }) === 0;
}

/**
 * The browser tests of `gem-ts ui` drive Debian's Chromium (/usr/bin/chromium) with playwright-core.
 * Installed like bubblewrap; where it cannot be, those tests skip (GEM_TS_SKIP_BROWSER_TESTS=1), loudly.
 */
export function ensureChromium() {
  const bin = process.env.GEM_TS_CHROMIUM ?? '/usr/bin/chromium';
  if (existsSync(bin)) return true;
  if (aptInstall('chromium', 'for the gem-ts ui browser tests') && existsSync(bin)) return true;
  console.warn(`⚠ Chromium is not available at ${bin}: the gem-ts ui browser tests skip.`);
  process.env.GEM_TS_SKIP_BROWSER_TESTS = '1';
  return false;
}

/**
 * The two-host Ray test (core/python/tests/test_ray_netns.py) makes network namespaces with iproute2's
 * `ip`. Installed like bubblewrap; where it cannot be (not root), that test skips, and says why.
 */
export function ensureIproute() {
  const has = () => spawnSync('ip', ['-V'], { stdio: 'ignore' }).status === 0;
  if (has()) return true;
  if (aptInstall('iproute2', 'for the two-host Ray test') && has()) return true;
  console.warn('⚠ iproute2 (ip) is not available: the two-host Ray test skips.');
  return false;
}

/**
 * GEM itself (gem-llm 0.1.0 from PyPI) in its own venv, for the differential graders and benchmarks that
 * measure gem-ts against GEM in the same run. pylatexenc: GEM's boxed-answer grader imports it.
 */
export function ensureGemPeerVenv() {
  const req = join(root, 'scripts/peer-requirements/gem.txt');
  return ensureVenv(join(root, 'core/bench/.venv-gem'), [['-r', req]], [req], { uv: true });
}

/**
 * OpenEnv (0.10.0 from PyPI) in its own venv, the peer of the OpenEnv benchmarks; made by the
 * benchmarks' own helper (core/bench/peer_venv.py) with openenv_peer.py's pins, so the pins and the
 * venv's stamp are written in one place. `py`: a Python that runs the helper (the root venv's).
 */
export function ensureOpenEnvPeerVenv(py) {
  const make = 'import sys; sys.path[:0] = ["core/bench"]; from openenv_peer import VENV, PINS; from peer_venv import ensure_peer_venv; ensure_peer_venv(VENV, PINS)';
  mustRun(py, ['-c', make]);
}
