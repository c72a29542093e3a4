/**
 * Where a short sandboxed run's time goes. One zygote (poolSize 1) with profiling on: the zygote
 * and the run's runner note when they reach each step on
 * CLOCK_MONOTONIC, and Node adds when it sent the request and got the reply. Printed per step: the
 * median time it is reached after the request left Node (negative: done ahead, before the request
 * came), for runs sent back to back and for runs sent after an idle gap (the next run's processes
 * then are ready); and the CPU time one run costs, per process. Writes
 * core/bench/results/sandboxProfile.json.
 *
 *   npx tsx bench/sandboxProfile.ts                 (GEM_BENCH_RUNS=300 runs per case by default)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Sandbox, type SandboxResult } from '../src/sandbox/sandbox.ts';

const RUNS = Number(process.env.GEM_BENCH_RUNS ?? 300);
const GAP_MS = 20;
const SNIPPET = 'print(sum(i * i for i in range(1000)))';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : Number.NaN;
};
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (us: number) => Math.round(us / 10) / 100;

interface Case {
  name: string;
  runs: number;
  latencyMs: { p50: number; p99: number };
  /** Median time each step is reached after Node sent the request (ms), in that order. */
  steps: Array<{ step: string; ms: number; seenIn: number }>;
  /** CPU per run (ms): Node, the zygote itself, the runner, and all of them. */
  cpuMsPerRun: Record<string, number>;
}

async function profileCase(sandbox: Sandbox, name: string, gapMs: number): Promise<Case> {
  const results: SandboxResult[] = [];
  const node0 = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) {
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
    const r = await sandbox.run({ code: SNIPPET });
    if (r.exitCode !== 0 || !r.profile) throw new Error(`${name}: run failed: ${r.stderr}`);
    results.push(r);
  }
  const node = process.cpuUsage(node0);
  const offsets = new Map<string, number[]>();
  const latency: number[] = [];
  for (const r of results) {
    const marks = r.profile!.marks;
    const sent = marks.find(([s]) => s === 'node sent the request')![1];
    const got = marks.find(([s]) => s === 'node got the reply')![1];
    latency.push(got - sent);
    for (const [step, t] of marks) offsets.set(step, [...(offsets.get(step) ?? []), t - sent]);
  }
  const steps = [...offsets.entries()]
    .map(([step, xs]) => ({ step, ms: ms(median(xs)), seenIn: xs.length }))
    .sort((a, b) => a.ms - b.ms);
  // The zygote's counters are cumulative (children count once reaped): the change over the case.
  const first = results[0].profile!.cpu_us;
  const last = results[results.length - 1].profile!.cpu_us;
  const perRun = (us: number) => Math.round((us / (results.length - 1) / 1000) * 100) / 100;
  const runner = median(results.map((r) => r.profile!.cpu_us.runner ?? 0));
  const zygoteSelf = perRun(last.zygote - first.zygote);
  const children = perRun(last.zygote_children - first.zygote_children);
  const nodeMs = Math.round(((node.user + node.system) / RUNS / 1000) * 100) / 100;
  const cpuMsPerRun = {
    node: nodeMs,
    zygote: zygoteSelf,
    runnerMedian: ms(runner),
    // Runners with their exits (kernel work included), as the zygote reaps them.
    runnersWithExit: children,
    total: Math.round((nodeMs + zygoteSelf + children) * 100) / 100,
  };
  const c: Case = { name, runs: results.length, latencyMs: { p50: ms(median(latency)), p99: ms(quantile(latency, 0.99)) }, steps, cpuMsPerRun };
  console.log(`\n${name}: ${c.runs} runs, latency p50 ${c.latencyMs.p50} ms, p99 ${c.latencyMs.p99} ms`);
  for (const s of steps) console.log(`  ${s.ms.toFixed(2).padStart(8)} ms  ${s.step}${s.seenIn < c.runs ? ` (${s.seenIn} runs)` : ''}`);
  console.log('  CPU per run (ms):', cpuMsPerRun);
  return c;
}

const sandbox = new Sandbox({ poolSize: 1, profile: true });
const load = loadavg()[0];
console.log(`sandbox profile: ${RUNS} runs per case of ${SNIPPET}; 1-minute load ${load.toFixed(2)}, ${cpus().length} CPUs`);
for (let i = 0; i < 20; i++) await sandbox.run({ code: SNIPPET });
const cases = [await profileCase(sandbox, 'back to back', 0), await profileCase(sandbox, `after an idle gap of ${GAP_MS} ms`, GAP_MS)];
await sandbox.close();

const outDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(outDir, { recursive: true });
writeFileSync(
  `${outDir}sandboxProfile.json`,
  `${JSON.stringify({ benchmark: 'sandboxProfile', date: new Date().toISOString(), load1: load, cpus: cpus().length, snippet: SNIPPET, runsPerCase: RUNS, cases }, null, 2)}\n`,
);
