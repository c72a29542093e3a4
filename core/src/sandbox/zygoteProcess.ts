/**
 * One running zygote (zygote.py), spoken to through python-shell: JSON lines in both directions,
 * one run at a time. If the process dies, the pending run gets a crash reply and the zygote is
 * marked dead so its pool starts another; nothing here throws for anything the code does.
 */
import { PythonShell } from 'python-shell';
import { GemError } from '../core/errors.ts';

export interface ZygoteRequest {
  id: number;
  code: string;
  stdin?: string;
  /** Instead of `stdin`: run the code once per test, each in a process of its own (zygote.py's run_each). */
  tests?: Array<{ stdin: string; stdout_keep_bytes?: number; stdout_kill_bytes?: number }>;
  /** With `tests`: how many run at once, and whether none starts after one failed on its own. */
  parallel?: number;
  stop_on_failure?: boolean;
  timeout_ms: number;
  cpu_s: number;
  memory_mb: number;
  max_procs: number;
  max_file_bytes: number;
  max_output_bytes: number;
  kill_output_bytes: number;
  stdout_keep_bytes?: number;
  stdout_kill_bytes?: number;
}

export interface ZygoteReply {
  id: number | null;
  stdout?: string;
  stderr?: string;
  stdout_bytes?: number;
  stderr_bytes?: number;
  exit_code?: number | null;
  signal?: number | null;
  cpu_limit?: boolean;
  cpu_ms?: number | null;
  killed?: 'timeout' | 'output_limit' | null;
  flooded?: 'stdout' | 'stderr' | null;
  error?: string | null;
  wall_ms?: number;
  /** For a request with `tests`: the results of the tests that ran, in order. */
  tests?: ZygoteReply[];
  /** With GEM_PROFILE=1: when each process of the run reached each step, and CPU used so far. */
  profile?: RunProfile | null;
  /** Set by us (not the zygote) when the caller aborted the run. */
  cancelled?: boolean;
}

/** Steps of one run as [step, CLOCK_MONOTONIC µs], and CPU µs (keeper, runner: this run; zygote: so far). */
export interface RunProfile {
  marks: Array<[string, number]>;
  cpu_us: Record<string, number>;
}

export interface ZygoteHello {
  ready: true;
  python: string;
  run_namespaces: boolean;
  /** Whether the next run's processes are made while a run executes (see zygote.py). */
  prepared_ahead: boolean;
}

export interface ZygoteSpawn {
  command: string;
  /** Everything before the script path (bwrap's arguments and the interpreter, or the interpreter's flags). */
  args: string[];
  scriptPath: string;
  env?: Record<string, string>;
}

type Pending = { id: number; resolve: (r: ZygoteReply) => void };

export class ZygoteProcess {
  private shell: PythonShell;
  private pending?: Pending;
  private stderrTail: string[] = [];
  private nextId = 1;
  alive = true;
  readonly ready: Promise<ZygoteHello>;

  constructor(spawn: ZygoteSpawn, startTimeoutMs = 30_000) {
    this.shell = new PythonShell(spawn.scriptPath, {
      pythonPath: spawn.command,
      pythonOptions: spawn.args,
      mode: 'text',
      // A line that is not JSON (it should never happen) must not throw inside a stream handler.
      parser: (line: string) => {
        try {
          return JSON.parse(line);
        } catch {
          return { unparsed: line };
        }
      },
      env: spawn.env,
    });
    const child = this.shell.childProcess;
    // Writing to a zygote that just died raises EPIPE on stdin; its death is reported through 'close'.
    child.stdin?.on('error', () => undefined);
    // An idle zygote must not keep Node alive; a pending run holds its own timer.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr] as unknown as Array<{ unref?: () => void } | null>) s?.unref?.();
    this.ready = new Promise<ZygoteHello>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new GemError('SANDBOX_UNAVAILABLE', `The sandbox did not start within ${startTimeoutMs} ms.${this.tail()}`));
      }, startTimeoutMs);
      const onMessage = (msg: ZygoteHello | ZygoteReply) => {
        if ('ready' in msg) {
          clearTimeout(timer);
          resolve(msg);
        } else this.onReply(msg as ZygoteReply);
      };
      this.shell.on('message', onMessage);
      this.shell.on('stderr', (line: string) => {
        this.stderrTail.push(line);
        if (this.stderrTail.length > 20) this.stderrTail.shift();
      });
      let gone = false;
      const onGone = (why: string) => {
        if (gone) return;
        gone = true;
        this.alive = false;
        clearTimeout(timer);
        reject(new GemError('SANDBOX_UNAVAILABLE', `The sandbox process ${why}.${this.tail()}`));
        const p = this.pending;
        this.pending = undefined;
        p?.resolve({ id: p.id, error: `the sandbox process ${why}` });
      };
      this.shell.on('close', () => onGone('exited'));
      this.shell.on('error', (e: Error) => onGone(`failed: ${e.message}`));
    });
    // Callers await `ready`; this keeps an unobserved start failure from being an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  private tail(): string {
    return this.stderrTail.length ? ` Its last output: ${this.stderrTail.join('\n').slice(-2000)}` : '';
  }

  private onReply(msg: ZygoteReply): void {
    const p = this.pending;
    if (!p || msg.id !== p.id) return;
    this.pending = undefined;
    p.resolve(msg);
  }

  /** Runs one request; `watchdogMs` bounds the wait even if the zygote itself hangs. */
  run(req: Omit<ZygoteRequest, 'id'>, watchdogMs: number, signal?: AbortSignal): Promise<ZygoteReply> {
    if (!this.alive) return Promise.resolve({ id: null, error: 'the sandbox process is not running' });
    if (this.pending) throw new GemError('INTERNAL', 'A zygote runs one request at a time.');
    const id = this.nextId++;
    return new Promise<ZygoteReply>((resolve) => {
      const timer = setTimeout(() => {
        if (this.pending?.id !== id) return;
        this.pending = undefined;
        this.kill();
        resolve({ id, error: 'the sandbox did not answer in time and was restarted', killed: 'timeout' });
      }, watchdogMs);
      // The zygote handles one thing at a time and cannot be interrupted: cancelling kills it.
      const onAbort = () => {
        if (this.pending?.id !== id) return;
        this.pending = undefined;
        clearTimeout(timer);
        this.kill();
        resolve({ id, cancelled: true });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending = {
        id,
        resolve: (r) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(r);
        },
      };
      this.shell.send(JSON.stringify({ ...req, id }));
    });
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  kill(): void {
    this.alive = false;
    try {
      this.shell.childProcess.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
