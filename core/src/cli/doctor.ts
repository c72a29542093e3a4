/**
 * `gem-ts doctor [--json]`: what this machine gives gem-ts. Node and Python versions, which isolation
 * sandboxed code gets (and a live check that it holds: a run works, the network is unreachable, the
 * host's files are hidden), and which optional packages are installed. Exit code 1 when sandboxed
 * code cannot run here, 0 otherwise.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isGemError } from '../core/errors.ts';
import { allowUnsandboxedFromEnv, detectIsolation, findBwrap } from '../sandbox/isolation.ts';
import { defaultPythonCommand, resolvePythonRuntime } from '../sandbox/pythonRuntime.ts';
import { Sandbox, ZYGOTE_PATH } from '../sandbox/sandbox.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHECKOUT_VENV_PYTHON = `${ROOT}.venv/bin/python`;
/** A checkout runs src/ through tsx; the npm package and the wheel run the compiled dist/. */
const COMPILED = import.meta.url.endsWith('.js');

/** Useful inside the sandbox (code envs, the Python tool). */
const SANDBOX_PACKAGES = ['numpy', 'sympy', 'scipy', 'pandas', 'networkx'];
/** The Python client's side (trainers, adapters, graders). */
const CLIENT_PACKAGES = ['gem_ts', 'pyzmq', 'pyarrow', 'msgpack', 'numpy', 'torch', 'math-verify', 'transformers'];
/** Optional Python packages, how to get each, and what is off without it. */
export const EXTRAS: { pkg: string; install: string; without: string }[] = [
  { pkg: 'reasoning-gym', install: "pip install 'gem-ts[reasoning]'", without: 'rg:* envs cannot be made (the ReasoningGym worker needs it)' },
  { pkg: 'datasets', install: 'pip install datasets', without: "math:*, code:*, qa:* and eval:* envs cannot load GEM's hub datasets by name (a local file or register_dataset still works)" },
  { pkg: 'math-verify', install: "pip install 'gem-ts[math-verify]'", without: 'nothing gem-ts needs: it is the reference the math grader is measured against' },
  { pkg: 'ray', install: "pip install 'gem-ts[ray]'", without: 'gem_ts.ray (one server per Ray node, sharded vector envs) is unavailable' },
];
const NODE_PACKAGES = ['zeromq', 'apache-arrow', '@modelcontextprotocol/sdk', 'python-shell', 'zod'];

export interface SandboxCheck {
  ok: boolean;
  detail: string;
}

export interface DoctorReport {
  node: string;
  python: { command: string; executable?: string; version?: string; error?: string };
  isolation: {
    kind: 'bwrap' | 'none';
    bwrap?: string;
    bwrapVersion?: string;
    reason?: string;
    perRunNamespaces?: boolean;
    unsandboxedAllowed: boolean;
  };
  sandboxChecks: Record<string, SandboxCheck>;
  /** Can sandboxed code run here (isolated, or unsandboxed by explicit opt-in)? */
  sandboxUsable: boolean;
  sandboxPackages: Record<string, string | null>;
  /** Which server this is: the compiled one (npm package, wheel) or a checkout's source. */
  server: { compiled: boolean; path: string };
  /** The Python that runs gem_ts: the one that started this CLI (the wheel's), else a checkout's .venv. */
  clientPython?: { executable: string; source: 'wheel' | 'checkout'; packages: Record<string, string | null> };
  nodePackages: Record<string, string | null>;
  search: { SEARCH_URL?: string; GEM_TS_SEARCH_CORPUS?: string };
}

function pythonPackageVersions(python: string, names: string[]): Record<string, string | null> {
  const code =
    'import json, sys, importlib.metadata as m\n' +
    'out = {}\n' +
    'for n in sys.argv[1:]:\n' +
    '    try: out[n] = m.version(n)\n' +
    '    except Exception: out[n] = None\n' +
    'print(json.dumps(out))';
  const r = spawnSync(python, ['-c', code, ...names], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) return Object.fromEntries(names.map((n) => [n, null]));
  return JSON.parse(r.stdout) as Record<string, string | null>;
}

/** The version Node would load: the nearest node_modules/<name> above this file, as in a checkout
 * (hoisted to the root) or an installed package (beside it, or in the project that installed it). */
function nodePackageVersion(name: string): string | null {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const p = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(p)) return (JSON.parse(readFileSync(p, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) return null;
  }
}

/** Runs three probes in the sandbox: it works, the network is closed, this very file is invisible. */
async function checkSandbox(sandbox: Sandbox): Promise<Record<string, SandboxCheck>> {
  const checks: Record<string, SandboxCheck> = {};
  const t0 = performance.now();
  const hello = await sandbox.run({ code: 'print(6 * 7)', timeoutMs: 10_000 });
  const ms = Math.round(performance.now() - t0);
  checks.run = hello.stdout === '42\n' ? { ok: true, detail: `ran a snippet (first run ${ms} ms, includes start-up)` } : { ok: false, detail: hello.stderr || 'no output' };
  const net = await sandbox.run({
    code: 'import socket\ntry:\n    socket.create_connection(("1.1.1.1", 53), timeout=2)\n    print("open")\nexcept OSError as e:\n    print(f"blocked ({e.strerror or e})")',
  });
  checks.network = net.stdout.startsWith('blocked') ? { ok: true, detail: net.stdout.trim() } : { ok: false, detail: 'the sandbox reached the internet' };
  const me = fileURLToPath(import.meta.url);
  const file = await sandbox.run({ code: `import os\nprint(os.path.exists(${JSON.stringify(me)}))` });
  checks.hostFiles = file.stdout.trim() === 'False' ? { ok: true, detail: 'host files are hidden' } : { ok: false, detail: 'the sandbox can see the host files' };
  return checks;
}

export async function collectReport(): Promise<DoctorReport> {
  const command = defaultPythonCommand();
  const report: DoctorReport = {
    node: process.version,
    python: { command },
    isolation: { kind: 'none', unsandboxedAllowed: allowUnsandboxedFromEnv() },
    sandboxChecks: {},
    sandboxUsable: false,
    sandboxPackages: {},
    server: { compiled: COMPILED, path: fileURLToPath(new URL('../', import.meta.url)) },
    nodePackages: Object.fromEntries(NODE_PACKAGES.map((n) => [n, nodePackageVersion(n)])),
    search: { SEARCH_URL: process.env.SEARCH_URL, GEM_TS_SEARCH_CORPUS: process.env.GEM_TS_SEARCH_CORPUS },
  };
  // The wheel's `gem-ts` sets GEM_TS_PYTHON to the interpreter it runs in (local_server.server_env).
  const fromWheel = COMPILED ? process.env.GEM_TS_PYTHON : undefined;
  const client = fromWheel ? { executable: fromWheel, source: 'wheel' as const } : existsSync(CHECKOUT_VENV_PYTHON) ? { executable: CHECKOUT_VENV_PYTHON, source: 'checkout' as const } : undefined;
  if (client) {
    const names = [...new Set([...CLIENT_PACKAGES, ...EXTRAS.map((e) => e.pkg)])];
    report.clientPython = { ...client, packages: pythonPackageVersions(client.executable, names) };
  }
  let runtime;
  try {
    runtime = resolvePythonRuntime(command);
  } catch (e) {
    report.python.error = e instanceof Error ? e.message : String(e);
    return report;
  }
  report.python.executable = runtime.executable;
  report.python.version = runtime.version;
  report.sandboxPackages = pythonPackageVersions(runtime.executable, SANDBOX_PACKAGES);
  const bwrap = findBwrap();
  const iso = detectIsolation(runtime, ZYGOTE_PATH, bwrap);
  report.isolation.kind = iso.kind;
  report.isolation.bwrap = bwrap;
  report.isolation.reason = iso.reason;
  if (bwrap) report.isolation.bwrapVersion = spawnSync(bwrap, ['--version'], { encoding: 'utf8' }).stdout?.trim() || undefined;
  let sandbox: Sandbox | undefined;
  try {
    sandbox = new Sandbox({ poolSize: 1 });
    report.sandboxChecks = await checkSandbox(sandbox);
    report.isolation.perRunNamespaces = sandbox.perRunNamespaces;
    report.sandboxUsable = report.sandboxChecks.run?.ok === true;
  } catch (e) {
    const msg = isGemError(e) || e instanceof Error ? e.message : String(e);
    report.sandboxChecks.start = { ok: false, detail: msg };
  } finally {
    await sandbox?.close();
  }
  return report;
}

function mark(ok: boolean): string {
  return ok ? '✓' : '✗';
}

function packages(list: Record<string, string | null>): string {
  return Object.entries(list)
    .map(([n, v]) => (v ? `${n} ${v}` : `${n} –`))
    .join(', ');
}

export function formatReport(r: DoctorReport): string {
  const lines = ['gem-ts doctor', ''];
  lines.push(`  Node              ${r.node} at ${process.execPath}`);
  lines.push(`  Server            ${r.server.compiled ? 'compiled' : 'source (a checkout, run through tsx)'} at ${r.server.path}`);
  lines.push(
    r.python.version
      ? `  Python (sandbox)  ${r.python.version} at ${r.python.executable}  (set GEM_TS_SANDBOX_PYTHON to change)`
      : `  Python (sandbox)  ✗ ${r.python.error}`,
  );
  const iso = r.isolation;
  if (iso.kind === 'bwrap') {
    lines.push(`  Isolation         ${iso.bwrapVersion ?? 'bubblewrap'} (${iso.bwrap}): own mount, pid, network, IPC and UTS namespaces; read-only /usr and Python`);
    lines.push(
      `                    per run: ${iso.perRunNamespaces ? 'fresh user/pid/mount/IPC namespaces and scratch tmpfs' : 'a forked child only (the kernel refused nested namespaces)'}; rlimits on CPU, memory, processes, file size`,
    );
  } else {
    lines.push(`  Isolation         none — ${iso.reason}`);
    lines.push(
      iso.unsandboxedAllowed
        ? '                    GEM_TS_ALLOW_UNSANDBOXED=1: code runs with rlimits only and CAN read your files and use the network'
        : '                    sandboxed code is refused; install bubblewrap, or set GEM_TS_ALLOW_UNSANDBOXED=1 to run it with rlimits only',
    );
  }
  for (const [name, c] of Object.entries(r.sandboxChecks)) lines.push(`  Sandbox ${name.padEnd(10)}${mark(c.ok)} ${c.detail}`);
  lines.push(`  Sandbox packages  ${packages(r.sandboxPackages) || '–'}`);
  const cp = r.clientPython;
  if (cp) {
    const core = Object.fromEntries(CLIENT_PACKAGES.map((n) => [n, cp.packages[n] ?? null]));
    lines.push(`  Python client     ${cp.executable} (${cp.source === 'wheel' ? 'the gem_ts wheel' : "the checkout's .venv"}): ${packages(core)}`);
    for (const e of EXTRAS) {
      const v = cp.packages[e.pkg];
      lines.push(v ? `  Extra ${e.pkg.padEnd(15)}✓ ${v}` : `  Extra ${e.pkg.padEnd(15)}✗ not installed: ${e.without}. Install: ${e.install}`);
    }
  } else lines.push(`  Python client     ${COMPILED ? 'unknown: run `gem-ts doctor` from the Python install (pip install gem-ts)' : 'not created yet (npm run setup)'}`);
  lines.push(`  Node packages     ${packages(r.nodePackages)}`);
  lines.push(
    `  Search            ${r.search.SEARCH_URL ? `SEARCH_URL=${r.search.SEARCH_URL}` : 'no SEARCH_URL'}; ${
      r.search.GEM_TS_SEARCH_CORPUS ? `GEM_TS_SEARCH_CORPUS=${r.search.GEM_TS_SEARCH_CORPUS}` : 'no GEM_TS_SEARCH_CORPUS'
    }`,
  );
  lines.push('', r.sandboxUsable ? 'Sandboxed code can run here.' : 'Sandboxed code cannot run here (see above).');
  return lines.join('\n');
}

export async function run(args: string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--json');
  if (unknown.length) {
    console.error(`gem-ts doctor: unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.join(' ')}\nusage: gem-ts doctor [--json]`);
    return 2;
  }
  const report = await collectReport();
  console.log(args.includes('--json') ? JSON.stringify(report, null, 2) : formatReport(report));
  return report.sandboxUsable ? 0 : 1;
}
