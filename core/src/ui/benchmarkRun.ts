/**
 * A benchmark result file (docs/results/benchmark_algorithms.json and what `npm run bench` writes):
 * per task, per algorithm, a learning curve of evaluation points; or, in the seeded layout, per task
 * `seeds: {<seed>: {algorithms, random_action, warm_start}}`, one curve per algorithm and seed. Read leniently: any list of
 * objects with a numeric `iter` under an algorithm is a curve, and a list of per-seed results that
 * each hold such a curve gives one curve per seed; unknown fields are ignored, and a file that has
 * no curves at all gets a notice instead of a chart.
 */
import { readFile } from 'node:fs/promises';
import type { BenchmarkTask, Curve, CurvePoint, Notice } from './apiTypes.ts';

export interface BenchmarkRun {
  tasks: BenchmarkTask[];
  settings: Record<string, unknown>;
  notices: Notice[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function numericFields(o: unknown): CurvePoint {
  const out: CurvePoint = {};
  if (isObj(o)) for (const [k, v] of Object.entries(o)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return out;
}

function asCurve(v: unknown): CurvePoint[] | undefined {
  if (!Array.isArray(v) || !v.length) return undefined;
  const points = v.map(numericFields);
  return points.every((p) => 'iter' in p) ? points : undefined;
}

function curvesOf(algorithm: string, a: unknown): Curve[] {
  if (!isObj(a)) return [];
  const direct = asCurve(a.curve);
  if (direct) return [{ algorithm, points: direct }];
  for (const v of Object.values(a)) {
    if (!Array.isArray(v)) continue;
    const perSeed = v
      .filter(isObj)
      .map((s, i) => ({ seed: (s.seed as number | string | undefined) ?? i, points: asCurve(s.curve) }))
      .filter((s): s is { seed: number | string; points: CurvePoint[] } => !!s.points);
    if (perSeed.length) return perSeed.map((s) => ({ algorithm, seed: s.seed, points: s.points }));
  }
  return [];
}

/** The per-seed parts of a task in the seeded layout (empty for the flat one). */
function seedsOf(t: Obj): [string, Obj][] {
  return isObj(t.seeds) ? Object.entries(t.seeds).filter((e): e is [string, Obj] => isObj(e[1]) && isObj(e[1].algorithms)) : [];
}

/** True when `v` looks like a benchmark result: a `tasks` object whose entries have `algorithms`, or
 * `seeds` that have them. */
export function looksLikeBenchmark(v: unknown): boolean {
  return (
    isObj(v) &&
    isObj(v.tasks) &&
    Object.values(v.tasks).some((t) => isObj(t) && (isObj(t.algorithms) || isObj(t.seeds)))
  );
}

export function parseBenchmark(v: unknown): BenchmarkRun {
  const notices: Notice[] = [];
  const tasks: BenchmarkTask[] = [];
  const root = isObj(v) ? v : {};
  for (const [name, t] of Object.entries(isObj(root.tasks) ? root.tasks : {})) {
    if (!isObj(t) || !(isObj(t.algorithms) || isObj(t.seeds))) continue;
    const seeds = seedsOf(t);
    const curves = isObj(t.algorithms)
      ? Object.entries(t.algorithms).flatMap(([algo, a]) => curvesOf(algo, a))
      : seeds.flatMap(([seed, run]) =>
          Object.entries(run.algorithms as Obj).flatMap(([algo, a]) => curvesOf(algo, a).map((c) => ({ ...c, seed: c.seed ?? seed }))),
        );
    const metrics = [...new Set(curves.flatMap((c) => c.points.flatMap((p) => Object.keys(p))))].filter(
      (k) => !['iter', 'env_steps', 'seconds'].includes(k),
    );
    // Baselines: the task's own, or in the seeded layout the first seed's (each seed has its own warm start).
    const holder = isObj(t.algorithms) ? t : (seeds[0]?.[1] ?? {});
    const baselines = (['random_action', 'warm_start'] as const)
      .filter((k) => isObj(holder[k]))
      .map((k) => ({ label: `${k.replace('_', ' ')}${holder === t ? '' : ` (seed ${seeds[0][0]})`}`, values: numericFields(holder[k]) }));
    if (!curves.length) notices.push({ level: 'warning', message: `Task '${name}' has no learning curves this viewer can read.` });
    tasks.push({
      name,
      env_id: typeof t.env_id === 'string' ? t.env_id : undefined,
      description: typeof t.description === 'string' ? t.description : undefined,
      baselines,
      curves,
      metrics,
    });
  }
  if (!tasks.length) notices.push({ level: 'error', message: 'No tasks with algorithms found in this file.' });
  return { tasks, settings: isObj(root.settings) ? root.settings : {}, notices };
}

export async function readBenchmark(path: string): Promise<BenchmarkRun> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    return { tasks: [], settings: {}, notices: [{ level: 'error', message: `Cannot read ${path}: ${(e as Error).message}` }] };
  }
  try {
    return parseBenchmark(JSON.parse(text));
  } catch (e) {
    return { tasks: [], settings: {}, notices: [{ level: 'error', message: `${path} is not valid JSON: ${(e as Error).message}` }] };
  }
}
