/**
 * The interval the benchmark reports beside every mean over seeds: a percentile bootstrap of the mean
 * (examples/benchmark/stats.py). With few seeds every one of the n^n resamples is enumerated, so the
 * chart's bands are the same numbers as the tables' intervals; with more, a fixed pseudo-random set of
 * resamples is drawn (the same method, not the same draws as numpy's).
 */
export interface SeedInterval {
  mean: number;
  lo: number;
  hi: number;
  n: number;
}

const EXACT_MAX_SEEDS = 6;
const RESAMPLES = 20_000;

/** Every resample mean (n ≤ EXACT_MAX_SEEDS), counted like an odometer over the n^n index tuples. */
function exactResampleMeans(v: number[]): number[] {
  const n = v.length;
  const idx = new Array<number>(n).fill(0);
  const out: number[] = [];
  for (;;) {
    let s = 0;
    for (const i of idx) s += v[i];
    out.push(s / n);
    let d = n - 1;
    while (d >= 0 && ++idx[d] === n) idx[d--] = 0;
    if (d < 0) return out;
  }
}

function sampledResampleMeans(v: number[]): number[] {
  const n = v.length;
  let state = 0x9e3779b9;
  // xorshift32: fixed draws, so a chart is the same every time it is drawn.
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const out: number[] = [];
  for (let r = 0; r < RESAMPLES; r++) {
    let s = 0;
    for (let k = 0; k < n; k++) s += v[Math.floor(next() * n)];
    out.push(s / n);
  }
  return out;
}

/** The q-quantile as the smallest value whose cumulative share reaches q (numpy's "inverted_cdf"). */
function invertedCdf(sorted: number[], q: number): number {
  const i = Math.ceil(q * sorted.length - 1e-9) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, i))];
}

export function meanInterval(values: number[], level = 0.95): SeedInterval {
  if (!values.length) throw new Error('no values to bootstrap');
  if (!(level > 0 && level < 1)) throw new Error('level must lie strictly between 0 and 1');
  const means = (values.length <= EXACT_MAX_SEEDS ? exactResampleMeans(values) : sampledResampleMeans(values)).sort((a, b) => a - b);
  const mean = values.reduce((s, t) => s + t, 0) / values.length;
  return { mean, lo: invertedCdf(means, (1 - level) / 2), hi: invertedCdf(means, (1 + level) / 2), n: values.length };
}
