/**
 * Sandboxed Python: runs per second and latency (p50, p99) of a short program at 1, 2, 8 and 64 runs
 * in flight, against a fresh process per run, measured in the same run on the same snippet and
 * interpreter:
 *   - gem-ts sandbox: bubblewrap-isolated zygotes (the default pool: one per core, at most 8), a
 *     fresh forked child per run (per-run namespaces, scratch tmpfs, rlimits);
 *   - fresh `python3 -I -c` per run: no isolation at all (the usual baseline, same flags as the zygote);
 *   - fresh `bwrap … python3 -c` per run: isolated the obvious way, one sandbox per run.
 * The contenders take turns in short windows so that a drifting load on the machine treats them alike.
 *
 * Then graded replies per second of a code env against GEM's own CodeEnv (gem-llm 0.1.0 from the
 * peer venv, see gemPeer.ts), in the same run on the same replies: a correct reply to each problem of
 * the code differential's corpus whose outputs are small, five stdin/stdout tests each, every test
 * run (a correct reply is the one that runs them all). Each side grades one reply at a time (GEM's
 * CodeEnv.step runs a reply's tests on 5 threads, gem-ts's on `max_workers` 5 too); gem-ts also with
 * several replies in flight. The sides take turns, CODE_ROUNDS times (a turn is 15 replies, under a second
 * for gem-ts: fewer turns left the ratio to the noise of a few short windows).
 *
 * Writes core/bench/results/sandboxThroughput.json. The 1-minute load is printed first and saved:
 * figures count only when it is below 0.5.
 *
 *   npm run bench sandboxThroughput     (GEM_BENCH_SECONDS=3 per contender and in-flight count)
 *   GEM_BENCH_SKIP_GEM=1 …              (without the CodeEnv comparison)
 *   GEM_BENCH_CODE_ROUNDS=6 …           (turns of the CodeEnv comparison)
 *   GEM_BENCH_CODE_ONLY=1 …             (the CodeEnv comparison alone, printed, no results file)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { make } from '../src/index.ts';
import { bwrapArgs, detectIsolation, findBwrap } from '../src/sandbox/isolation.ts';
import { resolvePythonRuntime } from '../src/sandbox/pythonRuntime.ts';
import { closeSharedSandbox, Sandbox, ZYGOTE_PATH } from '../src/sandbox/sandbox.ts';
import { generateCodeCorpus } from './codeDifferential/corpus.ts';
import { gemPeerPython } from './gemPeer.ts';

const SECONDS = Number(process.env.GEM_BENCH_SECONDS ?? 3);
const ROUNDS = 3;
const IN_FLIGHT = [1, 2, 8, 64];
/** Turns each side of the code-env comparison takes. */
const CODE_ROUNDS = Number(process.env.GEM_BENCH_CODE_ROUNDS ?? 6);
const SNIPPET = 'print(sum(i * i for i in range(1000)))';
const EXPECTED = `${Array.from({ length: 1000 }, (_, i) => i * i).reduce((a, b) => a + b, 0)}\n`;

type RunOnce = () => Promise<string>;

function spawnOnce(command: string, args: string[]): RunOnce {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}`))));
    });
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const quantile = (xs: number[], q: number) => {
  const s = sorted(xs);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : Number.NaN;
};
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

interface Row {
  name: string;
  inFlight: number;
  runs: number;
  seconds: number;
  runsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Runs completed in `seconds` with `inFlight` runs at a time, each one timed; checks every output. */
async function window(name: string, once: RunOnce, inFlight: number, seconds: number, latencies: number[]): Promise<{ runs: number; seconds: number }> {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let runs = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        if ((await once()) !== EXPECTED) throw new Error(`${name}: wrong output`);
        latencies.push(performance.now() - started);
        runs++;
      }
    }),
  );
  return { runs, seconds: (performance.now() - t0) / 1000 };
}

/** The contenders take turns: ROUNDS windows of SECONDS / ROUNDS each; a rate is runs over own time. */
async function compare(contenders: Array<[string, RunOnce]>, inFlight: number): Promise<Row[]> {
  const totals = contenders.map(() => ({ runs: 0, seconds: 0, latencies: [] as number[] }));
  for (const [name, once] of contenders) await window(name, once, inFlight, 0.2, []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let c = 0; c < contenders.length; c++) {
      const w = await window(contenders[c][0], contenders[c][1], inFlight, SECONDS / ROUNDS, totals[c].latencies);
      totals[c].runs += w.runs;
      totals[c].seconds += w.seconds;
    }
  }
  return contenders.map(([name], c) => {
    const t = totals[c];
    const row = { name, inFlight, runs: t.runs, seconds: round(t.seconds), runsPerSecond: round(t.runs / t.seconds, 1), p50Ms: round(quantile(t.latencies, 0.5)), p99Ms: round(quantile(t.latencies, 0.99)) };
    console.log(`  ${name.padEnd(32)} in flight ${String(inFlight).padStart(2)}  ${row.runsPerSecond.toFixed(1).padStart(7)} runs/s   p50 ${row.p50Ms.toFixed(2).padStart(7)} ms   p99 ${row.p99Ms.toFixed(2).padStart(7)} ms`);
    return row;
  });
}

// ---- code env: graded replies per second, gem-ts against GEM's CodeEnv ----

interface CodeEnvRow {
  name: string;
  inFlight: number;
  replies: number;
  seconds: number;
  repliesPerSecond: number;
  allScored1: boolean;
}

function codeEnvReplies() {
  const { problems, replies } = generateCodeCorpus({ seed: 1, perFamily: 2 });
  const small = problems.map((p, i) => ({ p, i })).filter(({ p }) => !p.largeOutput);
  const picked = small.map(({ i }) => replies.find((r) => r.problem === i && r.kind === 'correct')!);
  return { problems, replies: picked };
}

type Corpus = ReturnType<typeof codeEnvReplies>;

/** gem-ts's `code:CodeContest`: `inFlight` envs, each grading its share of the replies one at a time. */
async function gradeGemTs(corpus: Corpus, inFlight: number): Promise<{ seconds: number; rewards: number[] }> {
  const rows = corpus.problems.map((p) => ({ problem: p.problem, tests: JSON.stringify(p.tests) }));
  const envs = Array.from({ length: inFlight }, () => make('code:CodeContest', { dataset: rows, timeout: 10, eval: true }));
  const rewards: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    envs.map(async (env) => {
      while (next < corpus.replies.length) {
        const reply = corpus.replies[next++];
        await env.reset({ options: { idx: reply.problem } });
        rewards.push((await env.step(reply.text)).reward);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(envs.map((e) => e.close()));
  return { seconds, rewards };
}

/** GEM's CodeEnv (codeDifferential/peer.py), every reply once; its own timing of the steps. */
async function gradeGem(corpus: Corpus, python: string): Promise<{ seconds: number; rewards: number[] }> {
  const work = mkdtempSync(join(tmpdir(), 'gem-sandbox-bench-'));
  try {
    const corpusPath = join(work, 'corpus.json');
    writeFileSync(corpusPath, JSON.stringify(corpus));
    const peer = fileURLToPath(new URL('./codeDifferential/peer.py', import.meta.url));
    // GEM runs `python -c …`: the peer venv's interpreter must be the `python` on PATH.
    const env = { ...process.env, PATH: `${dirname(python)}:${process.env.PATH ?? ''}` };
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(python, [peer, corpusPath, '10'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`GEM peer exited ${code}: ${stderr}`))));
    });
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { reward?: number; timing?: { seconds: number } });
    return { seconds: lines.at(-1)!.timing!.seconds, rewards: lines.slice(0, -1).map((l) => l.reward ?? Number.NaN) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function codeEnvComparison(): Promise<{ rows: CodeEnvRow[]; testsPerReply: number; ratios: Record<string, number> } | undefined> {
  if (process.env.GEM_BENCH_SKIP_GEM === '1') return undefined;
  const corpus = codeEnvReplies();
  const python = await gemPeerPython();
  const testsPerReply = corpus.problems[corpus.replies[0].problem].tests.inputs.length;
  console.log(`\ncode env: ${corpus.replies.length} correct replies, ${testsPerReply} tests each; the sides take turns ${CODE_ROUNDS} times`);
  const sides: Array<[string, number, () => Promise<{ seconds: number; rewards: number[] }>]> = [
    ['gem-ts code:CodeContest', 1, () => gradeGemTs(corpus, 1)],
    ['GEM CodeEnv (gem-llm 0.1.0)', 1, () => gradeGem(corpus, python)],
    ['gem-ts code:CodeContest', 8, () => gradeGemTs(corpus, 8)],
  ];
  const totals = sides.map(() => ({ replies: 0, seconds: 0, all1: true }));
  await gradeGemTs(corpus, 1);
  for (let round = 0; round < CODE_ROUNDS; round++) {
    for (const [i, [, , grade]] of sides.entries()) {
      const r = await grade();
      totals[i].replies += r.rewards.length;
      totals[i].seconds += r.seconds;
      totals[i].all1 &&= r.rewards.length === corpus.replies.length && r.rewards.every((x) => x === 1);
    }
  }
  const rows = sides.map(([name, inFlight], i) => {
    const row = { name, inFlight, replies: totals[i].replies, seconds: round(totals[i].seconds), repliesPerSecond: round(totals[i].replies / totals[i].seconds), allScored1: totals[i].all1 };
    console.log(`  ${name.padEnd(32)} in flight ${String(inFlight).padStart(2)}  ${row.repliesPerSecond.toFixed(2).padStart(7)} replies/s${row.allScored1 ? '' : '  (not every reply scored 1!)'}`);
    return row;
  });
  const gem = rows[1].repliesPerSecond;
  const ratios = { vs_gem_inflight_1: round(rows[0].repliesPerSecond / gem), vs_gem_gemts_inflight_8: round(rows[2].repliesPerSecond / gem) };
  console.log('  ratios:', ratios);
  return { rows, testsPerReply, ratios };
}

// ---- main ----

const runtime = resolvePythonRuntime();
const isolation = detectIsolation(runtime, ZYGOTE_PATH, findBwrap());
if (isolation.kind !== 'bwrap') {
  console.error(`sandboxThroughput needs bubblewrap: ${isolation.reason}`);
  process.exit(1);
}
const load1 = loadavg()[0];
if (process.env.GEM_BENCH_CODE_ONLY === '1') {
  console.log(`code env only (1-minute load ${load1.toFixed(2)})`);
  await codeEnvComparison();
  await closeSharedSandbox();
  process.exit(0);
}
const sandbox = new Sandbox();
const viaSandbox: RunOnce = async () => {
  const r = await sandbox.run({ code: SNIPPET, timeoutMs: 10_000 });
  if (r.exitCode !== 0) throw new Error(r.stderr);
  return r.stdout;
};
const freshPython = spawnOnce(runtime.executable, ['-I', '-c', SNIPPET]);
const bwrapPerRun = spawnOnce(isolation.bwrapPath!, [
  ...bwrapArgs({ runtime, zygotePath: ZYGOTE_PATH, env: { PATH: '/usr/bin:/bin', HOME: '/tmp' } }),
  '--',
  runtime.executable,
  '-I',
  '-c',
  SNIPPET,
]);

console.log(
  `sandboxed Python (1-minute load ${load1.toFixed(2)}; ${SECONDS} s per contender and in-flight count in ${ROUNDS} turns; ${cpus().length} CPUs; Python ${runtime.version}; snippet: ${SNIPPET})`,
);
const rows: Row[] = [];
const contenders: Array<[string, RunOnce]> = [
  ['gem-ts sandbox (zygote fork)', viaSandbox],
  ['fresh python3 -c per run', freshPython],
  ['fresh bwrap + python3 per run', bwrapPerRun],
];
for (const inFlight of IN_FLIGHT) rows.push(...(await compare(contenders, inFlight)));
await sandbox.close();

const rate = (name: string, inFlight: number) => rows.find((r) => r.name.startsWith(name) && r.inFlight === inFlight)!.runsPerSecond;
const ratios = Object.fromEntries(
  IN_FLIGHT.flatMap((n) => [
    [`vs_fresh_python_inflight_${n}`, round(rate('gem-ts', n) / rate('fresh python3', n))],
    [`vs_fresh_bwrap_inflight_${n}`, round(rate('gem-ts', n) / rate('fresh bwrap', n))],
  ]),
);
console.log('  ratios:', ratios);

const codeEnv = await codeEnvComparison();
await closeSharedSandbox();

const outDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(outDir, { recursive: true });
writeFileSync(
  `${outDir}sandboxThroughput.json`,
  `${JSON.stringify(
    {
      benchmark: 'sandboxThroughput',
      date: new Date().toISOString(),
      load1,
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, python: runtime.version },
      snippet: SNIPPET,
      secondsPerContender: SECONDS,
      rounds: ROUNDS,
      codeRounds: CODE_ROUNDS,
      isolation: 'bwrap',
      rows,
      ratios,
      codeEnv,
    },
    null,
    2,
  )}\n`,
);
