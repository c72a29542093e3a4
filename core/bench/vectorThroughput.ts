/**
 * In-process vector throughput on game:GuessTheNumber-v0-easy (1–10, 4 turns), random valid actions
 * (`\boxed{1..10}`), same-step autoreset, at 1, 64, 1,024 and 10,000 envs, for SyncVectorEnv,
 * AsyncVectorEnv and EnvPool (send to every env, recv all). The peer, measured in the same run, is
 * a bare for-loop over the same envs (stepSync, resetSync on episode end): the floor that any
 * vector env adds overhead to. Each case runs GEM_BENCH_SECONDS in all, as three fixed wall-time
 * windows taken round-robin with the other cases of its size (after a warm-up), so that every case
 * sees the same interference from other processes; we report the mean, the best window, and steps
 * per CPU-second.
 * Then the memory of 10,000 idle envs (made and reset), from heap and RSS deltas around forced GCs.
 * Writes core/bench/results/vectorThroughput.json.
 *
 *   npm run bench vectorThroughput        (GEM_BENCH_SECONDS=3 by default per measurement)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Env } from '../src/core/env.ts';
import { make } from '../src/envs/defaultRegistry.ts';
import { makeVec } from '../src/vector/makeVec.ts';
import type { EnvPoolLike, VectorEnv, VectorMode } from '../src/vector/types.ts';
import '../src/envs/index.ts';

// Memory needs a forced GC: re-run under --expose-gc when started without it (npm run bench).
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', self, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const ID = 'game:GuessTheNumber-v0-easy';
const SECONDS = Number(process.env.GEM_BENCH_SECONDS ?? 3);
const WINDOWS = 3;
const WARMUP_SECONDS = Math.min(0.5, SECONDS / 6);
const SIZES = [1, 64, 1024, 10_000];
const MEMORY_ENVS = 10_000;
const ACTIONS = Array.from({ length: 10 }, (_, i) => `\\boxed{${i + 1}}`);

/** Fills `out` with random valid actions (xorshift32; cheap next to a step). */
function actionSource(n: number): () => string[] {
  const out = new Array<string>(n);
  let x = 0x9e3779b9;
  return () => {
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = ACTIONS[(x >>> 0) % 10];
    }
    return out;
  };
}

interface Row {
  executor: string;
  numEnvs: number;
  envSteps: number;
  seconds: number;
  /** Mean over the windows. */
  stepsPerSecond: number;
  /** The best window: the least disturbed by other processes on the machine. */
  bestWindowStepsPerSecond: number;
  stepsPerCpuSecond: number;
  /** bestWindowStepsPerSecond over the for-loop's at the same size. */
  vsForLoop?: number;
}

/** One executor at one size: `batch` steps every env once (a promise for async executors). */
interface Case {
  executor: string;
  numEnvs: number;
  batch: () => unknown;
  close?: () => Promise<void>;
  windows: { batches: number; seconds: number; cpuSeconds: number }[];
}

async function runWindow(c: Case, seconds: number): Promise<{ batches: number; seconds: number; cpuSeconds: number }> {
  const end = performance.now() + seconds * 1000;
  let batches = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  while (performance.now() < end) {
    const r = c.batch();
    if (r instanceof Promise) await r;
    batches++;
  }
  const cpu = process.cpuUsage(c0);
  return { batches, seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/**
 * Measures the cases of one size round-robin — WINDOWS windows each, SECONDS in all per case — so
 * that the peer and the executors see the same load from whatever else runs on the machine.
 */
async function measureRoundRobin(cases: Case[]): Promise<Row[]> {
  for (const c of cases) await runWindow(c, WARMUP_SECONDS);
  for (let w = 0; w < WINDOWS; w++) {
    for (const c of cases) c.windows.push(await runWindow(c, SECONDS / WINDOWS));
  }
  return cases.map((c) => {
    const batches = c.windows.reduce((a, w) => a + w.batches, 0);
    const seconds = c.windows.reduce((a, w) => a + w.seconds, 0);
    const cpuSeconds = c.windows.reduce((a, w) => a + w.cpuSeconds, 0);
    const best = Math.max(...c.windows.map((w) => (w.batches * c.numEnvs) / w.seconds));
    return {
      executor: c.executor,
      numEnvs: c.numEnvs,
      envSteps: batches * c.numEnvs,
      seconds: round(seconds, 3),
      stepsPerSecond: Math.round((batches * c.numEnvs) / seconds),
      bestWindowStepsPerSecond: Math.round(best),
      stepsPerCpuSecond: Math.round((batches * c.numEnvs) / cpuSeconds),
    };
  });
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function forLoop(n: number): Case {
  const envs: Env[] = Array.from({ length: n }, (_, i) => make(ID, { seed: i }));
  for (const e of envs) e.resetSync!();
  const next = actionSource(n);
  const batch = () => {
    const actions = next();
    for (let i = 0; i < n; i++) {
      const r = envs[i].stepSync!(actions[i]);
      if (r.terminated || r.truncated) envs[i].resetSync!();
    }
  };
  return { executor: 'for-loop (peer)', numEnvs: n, batch, windows: [] };
}

async function vector(mode: VectorMode, n: number, wrappers: string[] = []): Promise<Case> {
  const vec: VectorEnv = makeVec(ID, { numEnvs: n, mode, wrappers });
  await vec.reset({ seed: 0 });
  const next = actionSource(n);
  const all = Array.from({ length: n }, (_, i) => i);
  const executor = `${{ sync: 'SyncVectorEnv', async: 'AsyncVectorEnv', pool: 'EnvPool send/recv' }[mode]}${wrappers.length ? ` + ${wrappers.join(',')}` : ''}`;
  const pool = vec as EnvPoolLike;
  const batch =
    mode === 'pool'
      ? () => {
          pool.send(next(), all);
          return pool.recv();
        }
      : () => vec.step(next());
  return { executor, numEnvs: n, batch, close: () => vec.close(), windows: [] };
}

function settle(): void {
  for (let i = 0; i < 3; i++) gc!();
}

/** Bytes per idle env: made, reset, results dropped; heap and RSS deltas around forced GCs. */
async function idleMemory(wrappers: string[]): Promise<{ wrappers: string[]; numEnvs: number; heapBytesPerEnv: number; rssBytesPerEnv: number }> {
  settle();
  const before = process.memoryUsage();
  let vec: VectorEnv | undefined = makeVec(ID, { numEnvs: MEMORY_ENVS, wrappers });
  await vec.reset({ seed: 0 });
  settle();
  const after = process.memoryUsage();
  const keep = vec.numEnvs;
  await vec.close();
  vec = undefined;
  return {
    wrappers,
    numEnvs: keep,
    heapBytesPerEnv: Math.round((after.heapUsed - before.heapUsed) / MEMORY_ENVS),
    rssBytesPerEnv: Math.round((after.rss - before.rss) / MEMORY_ENVS),
  };
}

const startedAt = new Date().toISOString();
const loadBefore = loadavg();
// Warm up: compile the code paths and load the word lists etc. before the baseline is taken.
await makeVec(ID, { numEnvs: 16, wrappers: ['concat', 'episode_tracking'] }).reset();
// Memory first, before the throughput runs leave garbage and grown heaps behind.
const memory = [await idleMemory([]), await idleMemory(['concat', 'episode_tracking'])];
for (const m of memory) {
  console.log(`idle memory, ${m.numEnvs} envs${m.wrappers.length ? ` + ${m.wrappers.join(',')}` : ''}: ${m.heapBytesPerEnv} B heap / ${m.rssBytesPerEnv} B RSS per env`);
}

const rows: Row[] = [];
for (const n of SIZES) {
  const cases = [forLoop(n), await vector('sync', n), await vector('async', n), await vector('pool', n)];
  if (n === 1024) cases.push(await vector('sync', n, ['concat', 'episode_tracking']));
  const measured = await measureRoundRobin(cases);
  for (const c of cases) await c.close?.();
  const peer = measured[0];
  for (const r of measured.slice(1)) r.vsForLoop = round(r.bestWindowStepsPerSecond / peer.bestWindowStepsPerSecond, 2);
  rows.push(...measured);
  settle();
}

const fmt = (x: number) => x.toLocaleString('en');
console.log('\n| executor | envs | env-steps/s (best window) | env-steps/s (mean) | env-steps per CPU-s | vs for-loop |\n|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.executor} | ${fmt(r.numEnvs)} | ${fmt(r.bestWindowStepsPerSecond)} | ${fmt(r.stepsPerSecond)} | ${fmt(r.stepsPerCpuSecond)} | ${r.vsForLoop ?? 'peer'} |`,
  );
}

const out = {
  benchmark: 'vectorThroughput',
  env: ID,
  autoresetMode: 'same_step',
  secondsPerCase: SECONDS,
  windowsPerCase: WINDOWS,
  warmupSeconds: WARMUP_SECONDS,
  startedAt,
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, loadavgBefore: loadBefore.map((x) => round(x, 2)), loadavgAfter: loadavg().map((x) => round(x, 2)) },
  rows,
  idleMemory: memory,
};
const dir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}vectorThroughput.json`, `${JSON.stringify(out, null, 2)}\n`);
console.log(`\nwrote ${dir}vectorThroughput.json`);
