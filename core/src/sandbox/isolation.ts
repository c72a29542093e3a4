/**
 * How sandboxed code is isolated from the host. With bubblewrap the zygote lives in its own mount,
 * pid, network, IPC and UTS namespaces: the only host paths it sees are the system's /usr (and the
 * /bin, /lib symlinks), a few files of /etc the loader needs, and the Python install, all read-only;
 * its only writable places are a scratch tmpfs and /dev/shm, which each run replaces with fresh ones. Without
 * bubblewrap there is no file-system or network isolation, and the sandbox refuses to run unless the
 * user opts in (GEM_TS_ALLOW_UNSANDBOXED=1 or `allowUnsandboxed: true`).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { PythonRuntime } from './pythonRuntime.ts';

export type IsolationKind = 'bwrap' | 'none';

export interface IsolationReport {
  kind: IsolationKind;
  /** The bwrap binary that works, when kind is 'bwrap'. */
  bwrapPath?: string;
  /** Why bubblewrap is not used, when kind is 'none'. */
  reason?: string;
}

/** Where the sandbox sees its scratch tmpfs and the zygote script. */
export const SANDBOX_SCRATCH = '/tmp';
export const SANDBOX_ZYGOTE = '/gem/zygote.py';
/** The unprivileged uid/gid a run sees itself as when gem-ts itself runs as root. */
export const NOBODY = 65534;
/**
 * When gem-ts runs as root, the runs of one zygote that exist at once (the running one, the ones
 * made ahead, one on its way out) each get their own uid and gid outside their namespace,
 * RUN_ID_BASE + k for k < RUN_IDS, so no run may signal, trace or open the /proc files of another;
 * inside its namespace each still sees itself as NOBODY. The base lies above the ranges systemd
 * and container tools hand out (nspawn's end at 0x6FFF0000) and below 2^31.
 */
export const RUN_ID_BASE = 2_147_000_000;
export const RUN_IDS = 4;

const ETC_FILES = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/localtime', '/etc/nsswitch.conf'];
const TOP_LEVEL_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

export function allowUnsandboxedFromEnv(): boolean {
  return process.env.GEM_TS_ALLOW_UNSANDBOXED === '1';
}

export function isRoot(): boolean {
  return typeof process.geteuid === 'function' && process.geteuid() === 0;
}

/** The bwrap binary: GEM_TS_BWRAP (empty disables it), else `bwrap` on PATH. */
export function findBwrap(explicit?: string | null): string | undefined {
  if (explicit === null) return undefined;
  const want = explicit ?? process.env.GEM_TS_BWRAP;
  if (want !== undefined) return want === '' ? undefined : want;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, 'bwrap');
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Read-only binds of `root`, creating its parents world-traversable (bwrap makes them 0700). */
function bindReadOnly(root: string, made: Set<string>): string[] {
  const args: string[] = [];
  const parents: string[] = [];
  for (let d = dirname(root); d !== '/'; d = dirname(d)) parents.unshift(d);
  for (const d of parents) {
    if (made.has(d)) continue;
    made.add(d);
    args.push('--perms', '0755', '--dir', d);
  }
  made.add(root);
  args.push('--ro-bind', root, root);
  return args;
}

export interface BwrapCommandOptions {
  runtime: PythonRuntime;
  zygotePath: string;
  env: Record<string, string>;
}

/** The bwrap arguments that start the zygote (everything before the interpreter's own flags). */
export function bwrapArgs({ runtime, zygotePath, env }: BwrapCommandOptions): string[] {
  const args = ['--die-with-parent', '--new-session'];
  if (isRoot()) {
    // As root bwrap needs no user namespace; keep only what the zygote needs to hand each run to
    // an unprivileged uid (and to kill it), and nothing else.
    args.push('--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
    args.push('--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_KILL');
  } else {
    args.push('--unshare-all');
  }
  const made = new Set<string>(['/usr']);
  args.push('--ro-bind', '/usr', '/usr');
  for (const p of TOP_LEVEL_LINKS) {
    if (!existsSync(p)) continue;
    const st = lstatSync(p);
    if (st.isSymbolicLink()) args.push('--symlink', `usr${p}`, p);
    else args.push(...bindReadOnly(p, made));
  }
  for (const f of ETC_FILES) args.push('--ro-bind-try', f, f);
  // A runtime under the scratch path (a venv in /tmp) is bound after the scratch tmpfs, which would
  // otherwise hide it.
  const underScratch = (root: string) => root.startsWith(`${SANDBOX_SCRATCH}/`);
  const roots = runtime.roots.filter((r) => r !== '/usr' && !r.startsWith('/usr/'));
  for (const root of roots.filter((r) => !underScratch(r))) args.push(...bindReadOnly(root, made));
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--perms', '0755', '--tmpfs', SANDBOX_SCRATCH);
  made.add(SANDBOX_SCRATCH);
  for (const root of roots.filter(underScratch)) args.push(...bindReadOnly(root, made));
  args.push('--ro-bind', zygotePath, SANDBOX_ZYGOTE);
  // Without this an unprivileged bwrap leaves its own root and /dev writable, shared by every run.
  args.push('--remount-ro', '/', '--remount-ro', '/dev');
  args.push('--clearenv');
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--chdir', SANDBOX_SCRATCH);
  return args;
}

const probeCache = new Map<string, IsolationReport>();

/**
 * Whether bubblewrap works here with the arguments the sandbox uses (a container may forbid the
 * namespaces it needs). Cached per bwrap binary and interpreter.
 */
export function detectIsolation(runtime: PythonRuntime, zygotePath: string, bwrap: string | undefined): IsolationReport {
  if (!bwrap) return { kind: 'none', reason: 'bubblewrap (bwrap) is not installed; on Debian/Ubuntu: apt-get install bubblewrap' };
  const key = `${bwrap}\0${runtime.executable}`;
  const hit = probeCache.get(key);
  if (hit) return hit;
  const args = bwrapArgs({ runtime, zygotePath, env: { PATH: '/usr/bin:/bin' } });
  const r = spawnSync(bwrap, [...args, '--', runtime.executable, '-I', '-c', 'print("ok")'], {
    encoding: 'utf8',
    timeout: 15_000,
  });
  const report: IsolationReport =
    r.status === 0 && r.stdout.trim() === 'ok'
      ? { kind: 'bwrap', bwrapPath: bwrap }
      : { kind: 'none', reason: `bubblewrap at ${bwrap} does not work here: ${(r.error?.message ?? r.stderr ?? '').trim() || `exit ${r.status}`}` };
  probeCache.set(key, report);
  return report;
}
