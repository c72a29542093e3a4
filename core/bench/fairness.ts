/**
 * Fairness between tenants of one `gem-ts serve` (issue 14): one client steps a 100,000-env handle in
 * a loop (Arrow bodies both ways) while another steps a 4-env handle (inline rows); we report the
 * small tenant's step latency (p50, p99, max) and, as the peer in the same run, the same small tenant
 * alone on the same server. Three processes: the server (the real bin), the big tenant (this file in
 * `big` mode, which only counts its replies) and the small tenant (this process), so that no client
 * work sits on the server's event loop or the measuring one.
 *
 *   npx tsx core/bench/fairness.ts      (GEM_BENCH_SECONDS=15, GEM_BENCH_BIG_ENVS=100000; writes
 *                                        core/bench/results/fairness.json)
 *   GEM_BENCH_SERVER_BIN=/other/checkout/core/bin/gem-ts.js …  measures another build's server
 *   GEM_BENCH_SERVER_NODE_ARGS='--trace-gc --cpu-prof' …  node flags for the server process
 *   GEM_BENCH_SLOW_LOG=/tmp/slow.txt …  writes each small-tenant step over 10 ms (epoch ms at its end,
 *                                        its duration), to line up with the server's own timestamps
 *   GEM_BENCH_MONITOR=/tmp/mon.txt …    loads a monitor into the server that writes every GC (end in epoch
 *                                        ms, duration, kind, flags, external and ArrayBuffer MB after it),
 *                                        every event-loop gap over 12 ms (with the main thread's run and
 *                                        run-queue ms from schedstat) and memory every 250 ms
 *   GEM_BENCH_SERVER_STDOUT=/tmp/out.txt …  the server's stdout (e.g. --trace-gc lines) appended there
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Dealer } from 'zeromq';
import { encodeStepRequest } from '../src/server/protocol/arrowCodec.ts';
import { packHeader, unpackHeader } from '../src/server/protocol/frames.ts';

const ID = 'game:GuessTheNumber-v0-easy';
const SECONDS = Number(process.env.GEM_BENCH_SECONDS ?? 15);
const BIG = Number(process.env.GEM_BENCH_BIG_ENVS ?? 100_000);
const SMALL = 4;
const SELF = fileURLToPath(import.meta.url);
const BIN = process.env.GEM_BENCH_SERVER_BIN ?? fileURLToPath(new URL('../bin/gem-ts.js', import.meta.url));
const SERVER_NODE_ARGS = (process.env.GEM_BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const SLOW_LOG = process.env.GEM_BENCH_SLOW_LOG;
const MONITOR = process.env.GEM_BENCH_MONITOR;
const SERVER_STDOUT = process.env.GEM_BENCH_SERVER_STDOUT;

/**
 * The server-side monitor (GEM_BENCH_MONITOR), preloaded with --import: plain JavaScript, so it runs
 * before the bin registers its TypeScript loader. Lines are kept in memory and written once a second
 * and at exit, so the monitor itself adds no file writes to the loop it watches.
 */
const MONITOR_SOURCE = `
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { appendFileSync, readFileSync } from 'node:fs';
const file = process.env.GEM_BENCH_MONITOR;
const lines = [];
const now = () => performance.timeOrigin + performance.now();
const mb = (b) => (b / 1048576).toFixed(1);
const sched = () => readFileSync('/proc/self/task/' + process.pid + '/schedstat', 'utf8').split(' ').map(Number);
new PerformanceObserver((list) => {
  const m = process.memoryUsage();
  for (const e of list.getEntries()) {
    lines.push('GC ' + (performance.timeOrigin + e.startTime + e.duration).toFixed(1) + ' ' + e.duration.toFixed(1) +
      ' kind=' + e.detail.kind + ' flags=' + e.detail.flags + ' ext=' + mb(m.external) + ' ab=' + mb(m.arrayBuffers) + ' heap=' + mb(m.heapUsed));
  }
}).observe({ entryTypes: ['gc'] });
let last = now();
let lastSched = sched();
setInterval(() => {
  const t = now();
  const s = sched();
  if (t - last > 12) lines.push('GAP ' + t.toFixed(1) + ' ' + (t - last).toFixed(1) + ' run=' + ((s[0] - lastSched[0]) / 1e6).toFixed(1) + ' wait=' + ((s[1] - lastSched[1]) / 1e6).toFixed(1));
  last = t;
  lastSched = s;
}, 2);
setInterval(() => {
  const m = process.memoryUsage();
  lines.push('MEM ' + now().toFixed(1) + ' ext=' + mb(m.external) + ' ab=' + mb(m.arrayBuffers) + ' heap=' + mb(m.heapUsed) + ' rss=' + mb(m.rss));
}, 250);
const flush = () => { if (lines.length) appendFileSync(file, lines.splice(0).join('\\n') + '\\n'); };
setInterval(flush, 1000).unref();
process.on('exit', flush);
`;
const ACTIONS = Array.from({ length: 10 }, (_, k) => `\\boxed{${k + 1}}`);

/** Request/reply over one DEALER, one request at a time (what each tenant does). */
class Client {
  private readonly sock = new Dealer({ linger: 0 });
  private id = 0;

  constructor(endpoint: string) {
    this.sock.connect(endpoint);
  }

  async call(fields: Record<string, unknown>, body?: Uint8Array): Promise<{ header: Record<string, any>; bytes: number }> {
    const id = ++this.id;
    const frames: (Buffer | Uint8Array)[] = [packHeader({ v: 1, id, ...fields })];
    if (body) frames.push(body);
    await this.sock.send(frames);
    for (;;) {
      const [h, b] = await this.sock.receive();
      const header = unpackHeader(h) as Record<string, any>;
      if (header.id !== id) continue;
      if (!header.ok) throw new Error(`${String(fields.op)}: ${JSON.stringify(header.error)}`);
      return { header, bytes: h.length + (b?.length ?? 0) };
    }
  }

  close(): void {
    this.sock.close();
  }
}

async function makeHandle(c: Client, n: number): Promise<number> {
  const { header } = await c.call({ op: 'make', env_ids: ID, num_envs: n, seed: 0 });
  await c.call({ op: 'reset', handle: header.handle, seed: 0, reply_format: n > 512 ? 'arrow' : 'inline' });
  return header.handle as number;
}

/** The big tenant: step every env of a BIG-env handle, over and over, until killed. */
async function bigTenant(endpoint: string): Promise<void> {
  const c = new Client(endpoint);
  const h = await makeHandle(c, BIG);
  const indices = Array.from({ length: BIG }, (_, i) => i);
  let draw = 1;
  process.stdout.write('BIG_READY\n');
  for (let steps = 0; ; steps++) {
    const actions = indices.map(() => ACTIONS[(draw = (draw * 1103515245 + 12345) >>> 0) % 10]);
    const t0 = performance.now();
    const { bytes } = await c.call({ op: 'step', handle: h }, encodeStepRequest({ indices, actions }));
    process.stdout.write(`BIG_STEP ${(performance.now() - t0).toFixed(1)} ${bytes}\n`);
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** The small tenant: 4-env inline steps back to back for `seconds`; latencies in ms. */
async function smallSteps(c: Client, h: number, seconds: number, slow?: string[]): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + seconds * 1000;
  let draw = 7;
  const env_index = Array.from({ length: SMALL }, (_, i) => i);
  while (performance.now() < end) {
    const action = env_index.map(() => ACTIONS[(draw = (draw * 1103515245 + 12345) >>> 0) % 10]);
    const t0 = performance.now();
    await c.call({ op: 'step', handle: h, rows: { env_index, action } });
    const ms = performance.now() - t0;
    out.push(ms);
    if (slow && ms > 10) slow.push(`SLOW ${(performance.timeOrigin + t0 + ms).toFixed(1)} ${ms.toFixed(1)}`);
  }
  if (slow && SLOW_LOG) appendFileSync(SLOW_LOG, slow.join('\n') + (slow.length ? '\n' : ''));
  return out;
}

/**
 * Per-step quantiles, and the share of the window spent inside steps slower than 20 ms: a tenant
 * frozen for seconds makes few (slow) steps, which per-step quantiles undercount.
 */
function summary(lat: number[]): { steps: number; p50_ms: number; p99_ms: number; max_ms: number; time_in_steps_over_20ms: number } {
  const s = [...lat].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  const total = s.reduce((a, b) => a + b, 0);
  const slow = s.filter((x) => x > 20).reduce((a, b) => a + b, 0);
  return { steps: s.length, p50_ms: r(quantile(s, 0.5)), p99_ms: r(quantile(s, 0.99)), max_ms: r(s[s.length - 1]), time_in_steps_over_20ms: r(slow / total) };
}

function waitLine(child: ChildProcess, prefix: string, onOther?: (line: string) => void): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    lines.on('line', (l) => (l.startsWith(prefix) ? resolve(l.slice(prefix.length)) : onOther?.(l)));
    child.once('exit', (code) => reject(new Error(`${prefix}: process exited (${code})`)));
  });
}

async function main(): Promise<void> {
  const endpoint = `ipc://${join(tmpdir(), `gem-ts-fairness-${process.pid}-${randomBytes(3).toString('hex')}.sock`)}`;
  const loadAtStart = loadavg()[0];
  const nodeArgs = [...SERVER_NODE_ARGS];
  if (MONITOR) {
    const monitorFile = join(tmpdir(), `gem-ts-fairness-monitor-${process.pid}.mjs`);
    writeFileSync(monitorFile, MONITOR_SOURCE);
    nodeArgs.unshift('--import', monitorFile);
  }
  const server = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--endpoint', endpoint, '--max-envs-per-handle', String(BIG)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await waitLine(server, 'GEM_TS_ENDPOINT=', SERVER_STDOUT ? (l) => appendFileSync(SERVER_STDOUT, l + '\n') : undefined);
  const small = new Client(endpoint);
  const h = await makeHandle(small, SMALL);
  await smallSteps(small, h, 1); // warm-up
  const alone = summary(await smallSteps(small, h, Math.min(5, SECONDS / 3)));

  const bigSteps: number[] = [];
  let replyBytes = 0;
  const big = spawn(process.execPath, ['--import', 'tsx', SELF, 'big', endpoint], { stdio: ['ignore', 'pipe', 'inherit'] });
  await waitLine(big, 'BIG_READY', undefined);
  const counting = createInterface({ input: big.stdout! });
  counting.on('line', (l) => {
    const [tag, ms, bytes] = l.split(' ');
    if (tag !== 'BIG_STEP') return;
    bigSteps.push(Number(ms));
    replyBytes = Number(bytes);
  });
  const shared = summary(await smallSteps(small, h, SECONDS, SLOW_LOG ? [] : undefined));
  big.kill('SIGTERM');
  small.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));

  const bigSorted = [...bigSteps].sort((a, b) => a - b);
  const result = {
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, load_at_start: loadAtStart, load_at_end: loadavg()[0] },
    big_envs: BIG,
    small_envs: SMALL,
    seconds: SECONDS,
    server_bin: BIN,
    small_alone: alone,
    small_with_big: shared,
    big: { steps: bigSteps.length, p50_ms: bigSorted.length ? quantile(bigSorted, 0.5) : null, reply_bytes: replyBytes },
  };
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  if (!process.env.GEM_BENCH_SERVER_BIN) writeFileSync(join(dir, 'fairness.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`${cpus().length} CPUs, load ${loadAtStart.toFixed(2)} at start, ${loadavg()[0].toFixed(1)} at end; big tenant: ${BIG.toLocaleString('en')} envs, ${bigSteps.length} steps (p50 ${result.big.p50_ms} ms)`);
  console.log('| small tenant (4 envs) | steps | p50 | p99 | max | time in steps > 20 ms |\n|---|---:|---:|---:|---:|---:|');
  for (const [name, s] of [['alone (peer)', alone], ['while the big tenant steps', shared]] as const) {
    const share = `${Math.round(s.time_in_steps_over_20ms * 100)}%`;
    console.log(`| ${name} | ${s.steps.toLocaleString('en')} | ${s.p50_ms} ms | ${s.p99_ms} ms | ${s.max_ms} ms | ${share} |`);
  }
}

if (process.argv[2] === 'big') await bigTenant(process.argv[3]);
else await main();
