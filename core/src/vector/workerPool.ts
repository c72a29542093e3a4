/**
 * A pool of worker threads for envs registered as cpuBound (grading, test execution, puzzle
 * generation): each env lives in one worker, chosen as the one holding the fewest envs, and is
 * driven through a WorkerEnv proxy. A worker runs its requests in order; different workers run in
 * parallel, and the main event loop stays free either way.
 *
 * Workers run our TypeScript directly: workerBoot.mjs installs tsx's loader and imports
 * workerHost.ts. A worker that dies fails its pending calls with WORKER_FAILED, and so do later ones.
 * Idle workers are unref'd, so a forgotten pool never keeps the process alive.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { EnvClosedError, GemError, type GemErrorCode } from '../core/errors.ts';
import type { EnvSpec } from '../core/spec.ts';
import { WorkerEnv, type WorkerChannel } from './workerEnv.ts';
import type { WorkerBootData, WorkerReply, WorkerRequest } from './workerProtocol.ts';

// From source (tests, a checkout) workers boot through tsx; compiled (dist/, the npm package, the
// wheel) they start at the compiled host directly, so tsx is not needed at run time.
const COMPILED = import.meta.url.endsWith('.js');
const HOST_URL = new URL(COMPILED ? './workerHost.js' : './workerHost.ts', import.meta.url).href;
const BOOT_URL = COMPILED ? new URL(HOST_URL) : new URL('./workerBoot.mjs', import.meta.url);

/** Cores − 1 (the event loop keeps one), at least 1, and never more threads than envs. */
export function defaultWorkerCount(envs: number): number {
  return Math.max(0, Math.min(envs, Math.max(1, availableParallelism() - 1)));
}

export interface WorkerPoolOptions {
  /** Number of threads (default: defaultWorkerCount of a large pool). */
  size?: number;
}

type Pending = { resolve: (r: Extract<WorkerReply, { ok: true }>) => void; reject: (e: unknown) => void };

class WorkerThread implements WorkerChannel {
  readonly label: string;
  envCount = 0;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private dead?: GemError;

  constructor(
    index: number,
    private readonly keys: () => number,
  ) {
    this.label = `worker ${index}`;
    const workerData: WorkerBootData = { entry: HOST_URL };
    this.worker = new Worker(BOOT_URL, { workerData });
    this.worker.unref();
    this.worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    this.worker.on('error', (e) => this.fail(`crashed: ${e.message}`));
    this.worker.on('exit', (code) => this.fail(`exited with code ${code}`));
  }

  nextKey(): number {
    return this.keys();
  }

  released(): void {
    this.envCount--;
  }

  call(req: WorkerRequest): Promise<Extract<WorkerReply, { ok: true }>> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    req.id = id;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage(req);
    });
  }

  private onReply(reply: WorkerReply): void {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.ok) p.resolve(reply);
    else p.reject(new GemError(reply.error.code as GemErrorCode, reply.error.message, reply.error.data));
  }

  private fail(why: string): void {
    if (this.dead) return;
    this.dead = new GemError('WORKER_FAILED', `${this.label} ${why}`);
    for (const p of this.pending.values()) p.reject(this.dead);
    this.pending.clear();
  }

  async terminate(): Promise<void> {
    this.dead ??= new EnvClosedError('use the worker pool of');
    for (const p of this.pending.values()) p.reject(this.dead);
    this.pending.clear();
    await this.worker.terminate();
  }
}

export class WorkerPool {
  readonly size: number;
  private readonly threads: WorkerThread[] = [];
  private key = 0;
  private closed = false;

  constructor(opts: WorkerPoolOptions = {}) {
    const size = opts.size ?? defaultWorkerCount(Number.MAX_SAFE_INTEGER);
    if (!Number.isInteger(size) || size < 1) throw new GemError('INVALID_OPTIONS', `WorkerPool: size must be a positive integer, got ${size}`);
    this.size = size;
  }

  /**
   * Make the env `spec` describes (options already validated) in the least loaded worker;
   * `moduleUrl` is its registration's, for ids registered outside src/envs (the worker imports it).
   */
  createEnv(spec: EnvSpec, seed?: number, moduleUrl?: string): WorkerEnv {
    const id = spec.id;
    if (this.closed) throw new EnvClosedError('create envs in');
    const thread = this.leastLoaded();
    const key = this.nextKey();
    thread.envCount++;
    const made = thread.call({ op: 'make', id: 0, key, envId: id, options: spec.options, seed, moduleUrl });
    // A failed make is reported by the env's first reset or step (the worker keeps the error).
    made.catch(() => undefined);
    return new WorkerEnv(thread, key, spec);
  }

  private leastLoaded(): WorkerThread {
    if (this.threads.length < this.size) {
      const t = new WorkerThread(this.threads.length, () => this.nextKey());
      this.threads.push(t);
      return t;
    }
    return this.threads.reduce((a, b) => (b.envCount < a.envCount ? b : a));
  }

  private nextKey(): number {
    return ++this.key;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.terminate()));
  }
}
