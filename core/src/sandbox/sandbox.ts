/**
 * Runs untrusted Python (LLM-written code, test programs) in a sandbox and always answers with what
 * happened: output, exit code, and, when the run was stopped, why. A pool of pre-started zygotes
 * (zygote.py) forks a fresh child per run, so a run costs a fork, not an interpreter start, and no
 * state leaks from one run to the next. See isolation.ts for what the code can and cannot see.
 *
 * Limits per run: wall time, CPU time, address space, processes (threads count too), size of any
 * file written, scratch tmpfs size, and output: of each stream the head is kept, and a run that writes
 * past a stream's hard cap is stopped. A run may set its own stdout caps (a grader sizes them from the
 * output it expects), up to MAX_STDOUT_BYTES.
 *
 * A program ends as under a plain `python main.py`: non-daemon threads are joined, atexit hooks run,
 * buffered streams and unclosed files are flushed, and `sys.exit(code)` gives the exit code.
 */
import { availableParallelism, constants as osConstants, tmpdir } from 'node:os';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GemError } from '../core/errors.ts';
import {
  RUN_ID_BASE,
  RUN_IDS,
  SANDBOX_SCRATCH,
  SANDBOX_ZYGOTE,
  allowUnsandboxedFromEnv,
  bwrapArgs,
  detectIsolation,
  findBwrap,
  isRoot,
  type IsolationReport,
} from './isolation.ts';
import { resolvePythonRuntime, type PythonRuntime } from './pythonRuntime.ts';
import { ZygoteProcess, type RunProfile, type ZygoteReply, type ZygoteRequest, type ZygoteSpawn } from './zygoteProcess.ts';

export const ZYGOTE_PATH = fileURLToPath(new URL('./zygote.py', import.meta.url));

export interface SandboxLimits {
  /** Wall-clock limit of one run. */
  timeoutMs: number;
  /** CPU-time limit; defaults to the wall limit rounded up to whole seconds. */
  cpuSeconds?: number;
  /** Address-space limit per process (0 = none). */
  memoryMb: number;
  /** Processes and threads the code may have at once. */
  maxProcesses: number;
  /** Largest file the code may write. */
  maxFileBytes: number;
  /** Size of the scratch tmpfs (its working dir, HOME and TMPDIR). */
  scratchMb: number;
  /** Bytes kept of each of stdout and stderr. */
  maxOutputBytes: number;
  /** Bytes written to one stream after which the run is stopped. */
  killOutputBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 10_000,
  memoryMb: 1024,
  maxProcesses: 32,
  maxFileBytes: 16 * 1024 * 1024,
  scratchMb: 64,
  maxOutputBytes: 64 * 1024,
  killOutputBytes: 4 * 1024 * 1024,
};

export interface SandboxOptions extends Partial<SandboxLimits> {
  /** Interpreter command (default GEM_TS_SANDBOX_PYTHON or `python3`). */
  python?: string;
  /** bwrap binary; null forbids bubblewrap (testing the refusal path). Default: GEM_TS_BWRAP or PATH. */
  bwrap?: string | null;
  /** Run without file-system and network isolation when bubblewrap is unavailable. */
  allowUnsandboxed?: boolean;
  /** Zygotes kept running (concurrent runs). */
  poolSize?: number;
  /** Modules each zygote imports once at start, so runs that import them pay nothing. */
  preload?: string[];
  /** Each result carries a profile of its run (core/bench/sandboxProfile.ts); costs a little time. */
  profile?: boolean;
}

export interface RunOptions {
  code: string;
  stdin?: string;
  timeoutMs?: number;
  memoryMb?: number;
  cpuSeconds?: number;
  /** Bytes of stdout kept for this run (default maxOutputBytes; at most MAX_STDOUT_BYTES). */
  stdoutKeepBytes?: number;
  /** Bytes of stdout after which this run is stopped (default killOutputBytes; at most MAX_STDOUT_BYTES). */
  stdoutKillBytes?: number;
  /** Cancels the run: its zygote is killed (and replaced), and the result says 'cancelled'. */
  signal?: AbortSignal;
}

/** One run of a runEach call: its stdin and, optionally, its own stdout caps (as in RunOptions). */
export interface EachInput {
  stdin?: string;
  stdoutKeepBytes?: number;
  stdoutKillBytes?: number;
}

export interface RunEachOptions extends Omit<RunOptions, 'stdin' | 'stdoutKeepBytes' | 'stdoutKillBytes'> {
  inputs: EachInput[];
  /** Runs in flight at once (default 1). */
  parallel?: number;
  /** Start no run after one crashed, exited non-zero or was stopped. */
  stopOnFailure?: boolean;
}

export type KilledReason = 'timeout' | 'cpu_limit' | 'memory_limit' | 'output_limit' | 'signal' | 'cancelled' | 'sandbox_error';

export interface SandboxResult {
  stdout: string;
  /** The program's stderr, followed by a one-line explanation when the sandbox stopped it. */
  stderr: string;
  /** The exit status; null when the run was stopped (see killedReason). */
  exitCode: number | null;
  timedOut: boolean;
  killedReason?: KilledReason;
  /** Some output was dropped (more than the bytes kept of a stream). */
  truncated: boolean;
  /** With killedReason 'output_limit': the stream that went past its cap. */
  flooded?: 'stdout' | 'stderr';
  wallMs: number;
  /** With the `profile` option: the run's steps (and Node's send and receipt) in CLOCK_MONOTONIC µs. */
  profile?: RunProfile;
}

/** The most stdout one run may keep: it travels back as one JSON line. */
export const MAX_STDOUT_BYTES = 64 * 1024 * 1024;

export const DEFAULT_PRELOAD = ['math', 'json', 're', 'collections', 'itertools', 'functools', 'heapq', 'bisect', 'string', 'random', 'fractions', 'decimal'];

/** The most zygotes a pool starts with by default (one per core up to this). */
const MAX_DEFAULT_POOL = 8;

/** Signal number to name, as this platform numbers them (SIGIOT and SIGPOLL give way to SIGABRT and SIGIO). */
const SIGNAL_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(osConstants.signals)
    .filter(([name]) => name !== 'SIGIOT' && name !== 'SIGPOLL')
    .map(([name, n]) => [n, name]),
);

function mib(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
}

/** How far apart a busy loop's CPU limit and wall clock may land and still count as one moment. */
const CLOCK_SLACK_MS = 100;

export class Sandbox {
  readonly limits: SandboxLimits;
  readonly runtime: PythonRuntime;
  readonly isolation: IsolationReport;
  private readonly poolSize: number;
  private readonly spawnSpec: ZygoteSpawn;
  private readonly idle: ZygoteProcess[] = [];
  private readonly all = new Set<ZygoteProcess>();
  private readonly waiters: Array<(z: ZygoteProcess) => void> = [];
  private starting = 0;
  private scratchDir?: string;
  private closed = false;
  private runNamespaces?: boolean;

  constructor(opts: SandboxOptions = {}) {
    const { python, bwrap, allowUnsandboxed, poolSize, preload, profile, ...limits } = opts;
    this.limits = { ...DEFAULT_LIMITS, ...stripUndefined(limits) };
    validateLimits(this.limits);
    this.runtime = resolvePythonRuntime(python);
    this.isolation = detectIsolation(this.runtime, ZYGOTE_PATH, findBwrap(bwrap));
    if (this.isolation.kind === 'none' && !(allowUnsandboxed ?? allowUnsandboxedFromEnv())) {
      throw new GemError(
        'SANDBOX_UNAVAILABLE',
        `Refusing to run code without isolation: ${this.isolation.reason}. ` +
          'Install bubblewrap, or opt in to unsandboxed runs (rlimits only, the code can read your files and use the network) ' +
          'with GEM_TS_ALLOW_UNSANDBOXED=1 or allowUnsandboxed: true.',
        { reason: this.isolation.reason },
      );
    }
    this.poolSize = Math.max(1, poolSize ?? Math.min(MAX_DEFAULT_POOL, availableParallelism()));
    this.spawnSpec = this.buildSpawn(preload ?? DEFAULT_PRELOAD, profile ?? false);
  }

  private buildSpawn(preload: string[], profile: boolean): ZygoteSpawn {
    const env: Record<string, string> = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      PYTHONIOENCODING: 'utf-8',
      PYTHONDONTWRITEBYTECODE: '1',
      OPENBLAS_NUM_THREADS: '1',
      OMP_NUM_THREADS: '1',
      MKL_NUM_THREADS: '1',
      GEM_PRELOAD: preload.join(','),
      GEM_SCRATCH_MB: String(this.limits.scratchMb),
    };
    if (profile) env.GEM_PROFILE = '1';
    if (isRoot()) {
      env.GEM_RUN_UID = String(RUN_ID_BASE);
      env.GEM_RUN_GID = String(RUN_ID_BASE);
      env.GEM_RUN_IDS = String(RUN_IDS);
    }
    const pyFlags = [this.runtime.executable, '-u', '-I', '-B'];
    if (this.isolation.kind === 'bwrap') {
      env.GEM_SCRATCH = SANDBOX_SCRATCH;
      env.HOME = SANDBOX_SCRATCH;
      env.GEM_REAP_STRAYS = '1';
      const args = bwrapArgs({ runtime: this.runtime, zygotePath: ZYGOTE_PATH, env });
      return { command: this.isolation.bwrapPath!, args: [...args, '--', ...pyFlags], scriptPath: SANDBOX_ZYGOTE };
    }
    this.scratchDir = mkdtempSync(join(tmpdir(), 'gem-ts-scratch-'));
    // The dropped uid must be able to make its run folders here.
    chmodSync(this.scratchDir, 0o1777);
    env.GEM_SCRATCH = this.scratchDir;
    env.HOME = this.scratchDir;
    env.GEM_RUN_NEWNET = '1';
    return { command: pyFlags[0], args: pyFlags.slice(1), scriptPath: ZYGOTE_PATH, env };
  }

  /** Zygotes this sandbox keeps at most (it starts them as runs in flight need them). */
  get size(): number {
    return this.poolSize;
  }

  /** Whether each run also gets its own namespaces (pid, mount, IPC, user); known after the first start. */
  get perRunNamespaces(): boolean | undefined {
    return this.runNamespaces;
  }

  private async startZygote(): Promise<ZygoteProcess> {
    const z = new ZygoteProcess(this.spawnSpec);
    this.all.add(z);
    try {
      const hello = await z.ready;
      this.runNamespaces = hello.run_namespaces;
      return z;
    } catch (e) {
      this.all.delete(z);
      throw e;
    }
  }

  private async acquire(): Promise<ZygoteProcess> {
    if (this.closed) throw new GemError('ENV_CLOSED', 'This sandbox is closed.');
    while (this.idle.length) {
      const z = this.idle.pop()!;
      if (z.alive) return z;
      this.all.delete(z);
    }
    if (this.all.size + this.starting < this.poolSize) {
      this.starting++;
      try {
        return await this.startZygote();
      } finally {
        this.starting--;
      }
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(z: ZygoteProcess): void {
    if (!z.alive || this.closed) {
      this.all.delete(z);
      z.kill();
      // Its place in the pool is free again: hand it to a waiter as a fresh zygote.
      const next = this.waiters.shift();
      if (next && !this.closed) {
        this.starting++;
        this.startZygote()
          .then(next, () => next(z))
          .finally(() => this.starting--);
      }
      return;
    }
    const next = this.waiters.shift();
    if (next) next(z);
    else this.idle.push(z);
  }

  /** Runs `code`; never throws for anything the code does (only for a sandbox that cannot start). */
  async run(opts: RunOptions): Promise<SandboxResult> {
    const lim = this.runLimits(opts);
    const stdoutKeep = stdoutCap('stdoutKeepBytes', opts.stdoutKeepBytes);
    const stdoutKill = stdoutCap('stdoutKillBytes', opts.stdoutKillBytes);
    const sentUs = monotonicUs();
    const reply = await this.ask(
      { ...this.request(opts.code, lim), stdin: opts.stdin ?? '', stdout_keep_bytes: stdoutKeep, stdout_kill_bytes: stdoutKill },
      lim.timeoutMs + 10_000,
      opts.signal,
    );
    const result = this.toResult(reply, { ...lim, stdoutKill: stdoutKill ?? this.limits.killOutputBytes });
    if (reply.profile) {
      const marks: Array<[string, number]> = [['node sent the request', sentUs], ...reply.profile.marks, ['node got the reply', monotonicUs()]];
      result.profile = { marks: marks.sort((a, b) => a[1] - b[1]), cpu_us: reply.profile.cpu_us };
    }
    return result;
  }

  /**
   * Runs `code` once per input (a code env's tests), each run a process of its own with its own
   * stdin, streams, folder, limits and timeout, as `run` would, but all of them inside one run's
   * namespaces: one request and one sandbox set-up for all, `parallel` processes at a time, in order.
   * The runs share nothing another call could reach (see zygote.py's run_each). Returns the results
   * of the runs that happened, in input order: all of them, or with `stopOnFailure` those started
   * before one crashed, exited non-zero or was stopped (and those in flight then). A call that could
   * not run at all (cancelled, the sandbox failed) answers one result saying why, for the first input.
   */
  async runEach(opts: RunEachOptions): Promise<SandboxResult[]> {
    const lim = this.runLimits(opts);
    if (!Array.isArray(opts.inputs) || opts.inputs.length === 0) {
      throw new GemError('INVALID_OPTIONS', 'runEach: `inputs` must be a non-empty array.');
    }
    const parallel = opts.parallel ?? 1;
    if (!Number.isInteger(parallel) || parallel < 1 || parallel > 64) {
      throw new GemError('INVALID_OPTIONS', `runEach: 'parallel' must be a whole number in [1, 64], got ${String(parallel)}.`);
    }
    const tests = opts.inputs.map((input, i) => ({
      stdin: input.stdin ?? '',
      stdout_keep_bytes: stdoutCap(`inputs[${i}].stdoutKeepBytes`, input.stdoutKeepBytes),
      stdout_kill_bytes: stdoutCap(`inputs[${i}].stdoutKillBytes`, input.stdoutKillBytes),
    }));
    // As the zygote bounds it: a timeout per wave of `parallel` runs, and one wave more.
    const waves = Math.ceil(tests.length / Math.min(parallel, tests.length)) + 1;
    const reply = await this.ask(
      { ...this.request(opts.code, lim), tests, parallel, stop_on_failure: opts.stopOnFailure ?? false },
      waves * lim.timeoutMs + 12_000,
      opts.signal,
    );
    const killAt = (i: number) => tests[i].stdout_kill_bytes ?? this.limits.killOutputBytes;
    if (reply.tests?.length) return reply.tests.map((r, i) => this.toResult(r, { ...lim, stdoutKill: killAt(i) }));
    return [this.toResult({ ...reply, error: reply.error ?? (reply.cancelled ? undefined : 'the run reported no result') }, { ...lim, stdoutKill: killAt(0) })];
  }

  /** A run's time, memory and CPU limits (the sandbox's, unless the call sets them), checked. */
  private runLimits(opts: { code: string; timeoutMs?: number; memoryMb?: number; cpuSeconds?: number; signal?: AbortSignal }) {
    if (typeof opts.code !== 'string') throw new GemError('INVALID_OPTIONS', 'runSandboxed: `code` must be a string.');
    const timeoutMs = opts.timeoutMs ?? this.limits.timeoutMs;
    const memoryMb = opts.memoryMb ?? this.limits.memoryMb;
    const cpuSeconds = opts.cpuSeconds ?? this.limits.cpuSeconds ?? Math.ceil(timeoutMs / 1000);
    validateLimits({ ...this.limits, timeoutMs, memoryMb, cpuSeconds });
    opts.signal?.throwIfAborted();
    return { timeoutMs, memoryMb, cpuSeconds };
  }

  private request(code: string, lim: { timeoutMs: number; memoryMb: number; cpuSeconds: number }): Omit<ZygoteRequest, 'id'> {
    return {
      code,
      timeout_ms: lim.timeoutMs,
      cpu_s: lim.cpuSeconds,
      memory_mb: lim.memoryMb,
      max_procs: this.limits.maxProcesses,
      max_file_bytes: this.limits.maxFileBytes,
      max_output_bytes: this.limits.maxOutputBytes,
      kill_output_bytes: this.limits.killOutputBytes,
    };
  }

  /** Sends one request to a zygote of the pool (waiting for one to be free). */
  private async ask(req: Omit<ZygoteRequest, 'id'>, watchdogMs: number, signal?: AbortSignal): Promise<ZygoteReply> {
    const z = await this.acquire();
    try {
      return await z.run(req, watchdogMs, signal);
    } finally {
      this.release(z);
    }
  }

  private toResult(r: ZygoteReply, lim: { timeoutMs: number; memoryMb: number; cpuSeconds: number; stdoutKill: number }): SandboxResult {
    const stdout = r.stdout ?? '';
    let stderr = r.stderr ?? '';
    const truncated = (r.stdout_bytes ?? 0) > Buffer.byteLength(stdout) || (r.stderr_bytes ?? 0) > Buffer.byteLength(stderr);
    let killedReason: KilledReason | undefined;
    let note = '';
    const lastLine = stderr.trimEnd().split('\n').pop() ?? '';
    // The runner's SIGXCPU line is not the program's output: a limit is said once, in the note below.
    // A busy loop reaches its CPU limit (by default the timeout, rounded up) and the wall clock at
    // about the same moment, either first by a few ms (the runner's set-up CPU, the kernel's tick):
    // when the wall clock had (all but) run out too, the timeout is what it ran into.
    const withoutCpuLine = (): string => stderr.replace(/\n?CPU time limit exceeded\n$/, '');
    const wallRanOut = (r.wall_ms ?? 0) >= lim.timeoutMs - CLOCK_SLACK_MS;
    if (r.killed === 'timeout' || (r.cpu_limit && wallRanOut)) {
      killedReason = 'timeout';
      stderr = withoutCpuLine();
      note = `Execution timed out after ${lim.timeoutMs / 1000} seconds.`;
    } else if (r.killed === 'output_limit') {
      killedReason = 'output_limit';
      const cap = r.flooded === 'stderr' ? this.limits.killOutputBytes : lim.stdoutKill;
      note = `Output limit exceeded: the program wrote more than ${mib(cap)} to ${r.flooded ?? 'stdout'} and was stopped.`;
    } else if (r.cancelled) {
      killedReason = 'cancelled';
      note = 'The run was cancelled.';
    } else if (r.error) {
      killedReason = 'sandbox_error';
      note = `Sandbox error: ${r.error}.`;
    } else if (r.cpu_limit || (r.signal != null && (r.cpu_ms ?? 0) >= lim.cpuSeconds * 1000)) {
      killedReason = 'cpu_limit';
      stderr = withoutCpuLine();
      note = `CPU time limit exceeded (${lim.cpuSeconds} s).`;
    } else if (r.exit_code !== 0 && /^[\w.]*MemoryError\b/.test(lastLine)) {
      killedReason = 'memory_limit';
      note = `Memory limit exceeded (${lim.memoryMb} MB).`;
    } else if (r.signal != null) {
      killedReason = 'signal';
      note = `The program was killed by signal ${SIGNAL_NAMES[r.signal] ?? r.signal}.`;
    }
    if (note) stderr = stderr && !stderr.endsWith('\n') ? `${stderr}\n${note}` : `${stderr}${note}`;
    return {
      stdout,
      stderr,
      exitCode: killedReason && killedReason !== 'memory_limit' ? null : (r.exit_code ?? null),
      timedOut: killedReason === 'timeout',
      killedReason,
      truncated,
      ...(killedReason === 'output_limit' ? { flooded: r.flooded ?? 'stdout' } : {}),
      wallMs: r.wall_ms ?? 0,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const z of this.all) z.kill();
    this.all.clear();
    this.idle.length = 0;
    if (this.scratchDir) rmSync(this.scratchDir, { recursive: true, force: true });
  }
}

/** CLOCK_MONOTONIC in µs, the clock the zygote's profile marks use. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function validateLimits(l: SandboxLimits): void {
  const positive: Array<keyof SandboxLimits> = ['timeoutMs', 'maxProcesses', 'maxFileBytes', 'scratchMb', 'maxOutputBytes', 'killOutputBytes'];
  for (const k of positive) {
    const v = l[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
      throw new GemError('INVALID_OPTIONS', `Sandbox limit '${k}' must be a positive number, got ${String(v)}.`);
    }
  }
  if (!Number.isFinite(l.memoryMb) || l.memoryMb < 0) {
    throw new GemError('INVALID_OPTIONS', `Sandbox limit 'memoryMb' must be 0 (none) or a positive number, got ${l.memoryMb}.`);
  }
  if (l.cpuSeconds !== undefined && (!Number.isFinite(l.cpuSeconds) || l.cpuSeconds <= 0)) {
    throw new GemError('INVALID_OPTIONS', `Sandbox limit 'cpuSeconds' must be positive, got ${l.cpuSeconds}.`);
  }
}

/** A per-run stdout cap: undefined (the sandbox's limit) or a whole number of bytes in [1, MAX_STDOUT_BYTES]. */
function stdoutCap(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value <= 0 || value > MAX_STDOUT_BYTES) {
    throw new GemError('INVALID_OPTIONS', `Run option '${name}' must be a whole number of bytes in [1, ${MAX_STDOUT_BYTES}], got ${String(value)}.`);
  }
  return value;
}

let shared: Sandbox | undefined;


/** The process-wide sandbox (created on first use with default options). */
export function getSharedSandbox(): Sandbox {
  shared ??= new Sandbox();
  return shared;
}

/** Closes the process-wide sandbox; the next call makes a new one. */
export async function closeSharedSandbox(): Promise<void> {
  const s = shared;
  shared = undefined;
  await s?.close();
}

/** Runs Python code in the shared sandbox. See Sandbox.run. */
export function runSandboxed(opts: RunOptions): Promise<SandboxResult> {
  return getSharedSandbox().run(opts);
}

/** Runs Python code once per input in the shared sandbox. See Sandbox.runEach. */
export function runSandboxedEach(opts: RunEachOptions): Promise<SandboxResult[]> {
  return getSharedSandbox().runEach(opts);
}
