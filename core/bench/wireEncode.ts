/**
 * The server's share of one 1,024-env step reply, stage by stage: stepping the vector env, then
 * encoding its rows as the Arrow reply body (`encodeRows`: observation column, info dictionary, the
 * stream framing). Random actions on game:GuessTheNumber-v0-easy with same-step autoreset, as in
 * wire_throughput.py, so about a third of the rows carry `final_obs` / `final_info`.
 *
 * The step (EnvPool.stepInOrder, as the server runs a handle's step) is the peer: the ratio says what encoding costs next to the work it reports on, which a
 * busy machine slows about equally. Medians over the batches, wall clock and process CPU.
 *
 *   npx tsx core/bench/wireEncode.ts            (GEM_BENCH_BATCHES=600, GEM_BENCH_ENVS=1024)
 */
import { cpus, loadavg } from 'node:os';
import '../src/envs/index.ts';
import { makeVec } from '../src/vector/makeVec.ts';
import { encodeRows } from '../src/server/protocol/arrowCodec.ts';
import type { EnvPool } from '../src/vector/envPool.ts';

const ENVS = Number(process.env.GEM_BENCH_ENVS ?? 1024);
const BATCHES = Number(process.env.GEM_BENCH_BATCHES ?? 600);
const WARMUP = 100;
const POOL = Array.from({ length: 10 }, (_, k) => `\\boxed{${k + 1}}`);

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

// The server's own path: a handle is an EnvPool, which checks, orders and steps the batch.
const pool = makeVec('game:GuessTheNumber-v0-easy', { numEnvs: ENVS, seed: 0, mode: 'pool' }) as EnvPool;
await pool.reset({ seed: 0 });
const indices = Array.from({ length: ENVS }, (_, i) => i);
let draw = 12345;
const action = () => POOL[(draw = (draw * 1103515245 + 12345) >>> 0) % 10];

const wall = { step: [] as number[], encode: [] as number[] };
const cpu = { step: [] as number[], encode: [] as number[] };
let bytes = 0;
for (let b = 0; b < WARMUP + BATCHES; b++) {
  const actions = indices.map(action);
  const t0 = performance.now();
  const c0 = cpuUs();
  const rows = await pool.stepInOrder(actions, indices);
  const t1 = performance.now();
  const c1 = cpuUs();
  const body = encodeRows(rows);
  const t2 = performance.now();
  const c2 = cpuUs();
  if (b < WARMUP) continue;
  wall.step.push((t1 - t0) * 1000);
  wall.encode.push((t2 - t1) * 1000);
  cpu.step.push(c1 - c0);
  cpu.encode.push(c2 - c1);
  bytes += body.byteLength;
}
await pool.close();

const us = (x: number) => `${Math.round(x)} µs`;
console.log(`${ENVS} envs, ${BATCHES} batches, ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)}; body ${Math.round(bytes / BATCHES / 1024)} KiB a batch`);
console.log(`| stage | wall p50 | CPU p50 |\n|---|---:|---:|`);
console.log(`| pool.stepInOrder | ${us(median(wall.step))} | ${us(median(cpu.step))} |`);
console.log(`| encodeRows | ${us(median(wall.encode))} | ${us(median(cpu.encode))} |`);
console.log(`encode / step: ${(median(wall.encode) / median(wall.step)).toFixed(2)} (wall), ${(median(cpu.encode) / median(cpu.step)).toFixed(2)} (CPU)`);
