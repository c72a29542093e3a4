/**
 * A server many clients share (issue 14), measured on a real `gem-ts serve` child process:
 *
 * 1. Push and free: `clients` clients one after another each push `tables` distinct Arrow tables of
 *    about `mb` MB (the issue's case: 3 × 3 × 38 MB), make a math env over one and reset it, then
 *    close; `rounds` times over. The server's RSS and heap (from `stats`) at the start, at the peak
 *    and after the last client of each round left; the aim is RSS back within 10% of the start, and
 *    no growth from round to round.
 * 2. Burst: 100 clients × 16 envs of game:GuessTheNumber-v0-easy, every client stepping all its envs
 *    (inline rows, random valid actions) with one request in flight, all at once: env-steps/s over
 *    all clients and the per-request latency p50/p99/max. The peer in the same run is one client
 *    stepping 1,600 envs in one handle: the same work without the per-client overhead.
 *
 * Writes core/bench/results/tenancy.json.
 *
 *   npm run bench tenancy        (GEM_BENCH_SECONDS=5 per burst; TENANCY_MB=38, TENANCY_CLIENTS=3, TENANCY_TABLES=3)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tableFromArrays, tableToIPC } from 'apache-arrow';
import { Dealer } from 'zeromq';
import { packHeader, unpackHeader } from '../src/server/protocol/frames.ts';

const SECONDS = Number(process.env.GEM_BENCH_SECONDS ?? 5);
const MB = Number(process.env.TENANCY_MB ?? 38);
const PUSH_CLIENTS = Number(process.env.TENANCY_CLIENTS ?? 3);
const TABLES = Number(process.env.TENANCY_TABLES ?? 3);
const ROUNDS = Number(process.env.TENANCY_ROUNDS ?? 3);
const BURST_CLIENTS = 100;
const ENVS_PER_CLIENT = 16;
const ID = 'game:GuessTheNumber-v0-easy';
const BIN = fileURLToPath(new URL('../bin/gem-ts.js', import.meta.url));
const OUT = fileURLToPath(new URL('./results/tenancy.json', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One protocol v1 client: one request in flight at a time (what this benchmark needs). */
class Client {
  private readonly sock = new Dealer({ linger: 0 });
  private nextId = 1;
  constructor(endpoint: string) {
    this.sock.connect(endpoint);
  }
  async request(fields: Record<string, unknown>, body?: Uint8Array): Promise<Record<string, any>> {
    const id = this.nextId++;
    const frames: Buffer[] = [packHeader({ v: 1, id, ...fields })];
    if (body) frames.push(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    await this.sock.send(frames);
    for (;;) {
      const [h] = await this.sock.receive();
      const header = unpackHeader(h) as Record<string, any>;
      if (header.id !== id) continue;
      if (!header.ok) throw new Error(`${String(fields.op)}: ${JSON.stringify(header.error)}`);
      return header;
    }
  }
  close(): void {
    this.sock.close();
  }
}

async function startServer(): Promise<{ endpoint: string; stop: () => void }> {
  const endpoint = `ipc://${join(tmpdir(), `gem-ts-bench-${process.pid}-${randomBytes(3).toString('hex')}.sock`)}`;
  const child = spawn(process.execPath, [BIN, 'serve', '--endpoint', endpoint, '--exit-with-stdin', '--max-dataset-bytes-per-client', String(64 * 1024 ** 3)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  return { endpoint, stop: () => child.stdin!.end() };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const mib = (b: number) => Math.round((b / 1024 ** 2) * 10) / 10;

/** A distinct table of about `mb` MB: math rows whose problem text says who pushed it. */
function bigTable(tag: string, mb: number): Uint8Array {
  const rowBytes = 1000;
  const n = Math.max(1, Math.round((mb * 1024 ** 2) / rowBytes));
  const filler = 'x'.repeat(rowBytes - 40);
  const problem = Array.from({ length: n }, (_, i) => `${tag} row ${i} ${filler}`);
  const answer = Array.from({ length: n }, (_, i) => String(i));
  return tableToIPC(tableFromArrays({ problem, answer }), 'stream');
}

async function pushAndFree(endpoint: string) {
  const watcher = new Client(endpoint);
  const server = async () => (await watcher.request({ op: 'stats' })).server as { rss_bytes: number; heap_used_bytes: number; external_bytes: number; datasets: number; dataset_bytes: number };
  await watcher.request({ op: 'hello' });
  // The start: a server that has already served one push of the same size and freed it (code loaded
  // and compiled, the allocator grown once, the freed-memory collection run once), not a process
  // still loading its modules: what is measured is whether tenants' data stays behind.
  const warm = new Client(endpoint);
  await warm.request({ op: 'register_dataset', name: 'warm' }, bigTable('warm', MB));
  const wh = (await warm.request({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: 'warm' } })).handle;
  await warm.request({ op: 'reset', handle: wh, options: { idx: 0 } });
  await warm.request({ op: 'close' });
  warm.close();
  await sleep(3000);
  const start = await server();
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    let peak = start;
    for (let c = 0; c < PUSH_CLIENTS; c++) {
      const client = new Client(endpoint);
      for (let t = 0; t < TABLES; t++) {
        await client.request({ op: 'register_dataset', name: `c${c}/t${t}` }, bigTable(`round ${round} client ${c} table ${t}`, MB));
      }
      const h = (await client.request({ op: 'make', env_ids: 'math:GSM8K', options: { dataset: `c${c}/t0` } })).handle;
      await client.request({ op: 'reset', handle: h, options: { idx: 0 } });
      const s = await server();
      if (s.rss_bytes > peak.rss_bytes) peak = s;
      await client.request({ op: 'close' });
      client.close();
    }
    // RSS after: the lowest over 10 s of idling (the allocator hands pages back over a few GC cycles).
    let after = await server();
    for (let i = 0; i < 40; i++) {
      await sleep(250);
      const s = await server();
      if (s.rss_bytes < after.rss_bytes) after = s;
    }
    rounds.push({
      peak: { rss_mib: mib(peak.rss_bytes), heap_mib: mib(peak.heap_used_bytes), external_mib: mib(peak.external_bytes), datasets: peak.datasets, dataset_mib: mib(peak.dataset_bytes) },
      after: { rss_mib: mib(after.rss_bytes), heap_mib: mib(after.heap_used_bytes), external_mib: mib(after.external_bytes), datasets: after.datasets, dataset_mib: mib(after.dataset_bytes) },
      rss_after_over_start: Math.round((after.rss_bytes / start.rss_bytes) * 1000) / 1000,
    });
  }
  watcher.close();
  return {
    clients: PUSH_CLIENTS,
    tables_per_client: TABLES,
    table_mb: MB,
    start: { rss_mib: mib(start.rss_bytes), heap_mib: mib(start.heap_used_bytes), external_mib: mib(start.external_bytes), datasets: start.datasets },
    rounds,
  };
}

const ACTIONS = Array.from({ length: 10 }, (_, i) => `\\boxed{${i + 1}}`);

/** `clients` clients × `envs` envs stepping for SECONDS; env-steps/s and per-request latency. */
async function burst(endpoint: string, clients: number, envs: number) {
  const cs = Array.from({ length: clients }, () => new Client(endpoint));
  const handles = await Promise.all(cs.map(async (c) => (await c.request({ op: 'make', env_ids: ID, num_envs: envs, seed: 1 })).handle as number));
  await Promise.all(cs.map((c, i) => c.request({ op: 'reset', handle: handles[i], seed: 7 })));
  const index = Array.from({ length: envs }, (_, i) => i);
  const stats0 = (await cs[0].request({ op: 'stats' })).server as { cpu_s: number };
  const latencies: number[] = [];
  let steps = 0;
  let t = 0;
  const end = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    cs.map(async (c, i) => {
      while (performance.now() < end) {
        const action = index.map(() => ACTIONS[(t++ * 7) % 10]);
        const s = performance.now();
        await c.request({ op: 'step', handle: handles[i], rows: { env_index: index, action }, reply_format: 'inline' });
        latencies.push(performance.now() - s);
        steps += envs;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const stats1 = (await cs[0].request({ op: 'stats' })).server as { cpu_s: number };
  await Promise.all(cs.map((c) => c.request({ op: 'close' })));
  for (const c of cs) c.close();
  latencies.sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 100) / 100;
  return {
    clients,
    envs_per_client: envs,
    env_steps_per_s: Math.round(steps / wall),
    requests: latencies.length,
    latency_ms: { p50: r(quantile(latencies, 0.5)), p99: r(quantile(latencies, 0.99)), max: r(latencies.at(-1) ?? 0) },
    server_env_steps_per_cpu_s: Math.round(steps / Math.max(1e-9, stats1.cpu_s - stats0.cpu_s)),
  };
}

const { endpoint, stop } = await startServer();
try {
  const push = await pushAndFree(endpoint);
  push.rounds.forEach((r, i) => {
    console.log(
      `push and free, round ${i + 1}: RSS ${push.start.rss_mib} → peak ${r.peak.rss_mib} → after ${r.after.rss_mib} MiB (×${r.rss_after_over_start}); ` +
        `heap ${push.start.heap_mib} → ${r.peak.heap_mib} → ${r.after.heap_mib} MiB; datasets held after: ${r.after.datasets}`,
    );
  });
  const many = await burst(endpoint, BURST_CLIENTS, ENVS_PER_CLIENT);
  const one = await burst(endpoint, 1, BURST_CLIENTS * ENVS_PER_CLIENT);
  for (const b of [many, one]) {
    console.log(`burst ${b.clients} × ${b.envs_per_client}: ${b.env_steps_per_s} env-steps/s, p50 ${b.latency_ms.p50} ms, p99 ${b.latency_ms.p99} ms, max ${b.latency_ms.max} ms`);
  }
  mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true });
  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg(), node: process.version };
  writeFileSync(OUT, `${JSON.stringify({ date: new Date().toISOString(), machine, seconds: SECONDS, push_and_free: push, burst: many, peer_one_client: one }, null, 2)}\n`);
  console.log(`wrote ${OUT}`);
} finally {
  stop();
}
