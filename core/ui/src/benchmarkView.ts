/** A benchmark result: per task, the learning curves of every algorithm (SVG) and the final values. */
import { api, type RunInfo } from './api.ts';
import type { BenchmarkTask as Task, Curve } from '../../src/ui/apiTypes.ts';
import { clear, h, notices, type Notice } from './dom.ts';
import { fmt } from './format.ts';
import { meanInterval, type SeedInterval } from './seedInterval.ts';

const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be185d', '#4d7c0f'];
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function ticks(lo: number, hi: number, n = 5): number[] {
  const span = hi - lo || 1;
  const step = 10 ** Math.floor(Math.log10(span / n));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= n) ?? step * 10;
  const out: number[] = [];
  for (let v = Math.ceil(lo / nice) * nice; v <= hi + 1e-9; v += nice) out.push(Number(v.toPrecision(10)));
  return out;
}

/** The mean over seeds at each x and its bootstrap interval (curves of one algorithm share their evaluation points). */
function seedCurve(curves: Curve[], x: string, y: string): [number, SeedInterval][] {
  const by = new Map<number, number[]>();
  for (const c of curves) for (const p of c.points) if (x in p && y in p) (by.get(p[x]) ?? by.set(p[x], []).get(p[x])!).push(p[y]);
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [k, meanInterval(v)]);
}

const LEGEND_ROW = 18;
/** Baselines close in value (random 0.30, warm start 0.31) would print their labels on top of each other. */
const LABEL_GAP = 14;

/** `ys` moved apart to at least `gap` from each other, in their order, kept within [lo, hi] where they fit. */
export function spreadApart(ys: number[], gap: number, lo: number, hi: number): number[] {
  const order = ys.map((v, i) => i).sort((a, b) => ys[a] - ys[b]);
  const out = [...ys];
  let prev = -Infinity;
  for (const i of order) prev = out[i] = Math.max(out[i], prev + gap, lo);
  // Pushed past the bottom: shift the run back up as a whole.
  const over = prev - hi;
  if (over > 0) for (const i of order) out[i] = Math.max(lo, out[i] - over);
  return out;
}

export function learningCurveChart(task: Task, x: string, y: string): SVGElement {
  const algos = [...new Set(task.curves.map((c) => c.algorithm))];
  const series = algos.map((a) => ({ algo: a, seeds: task.curves.filter((c) => c.algorithm === a) }));
  // The legend sits under the x axis, a row per series, so a long name is never cut at the edge; the
  // right margin holds only the baselines' labels.
  const base = task.baselines.filter((b) => y in b.values);
  const W = 720;
  // ~6.5 px a character at the 11 px tick font: room for the longest label ("random action (seed 0)").
  const m = { l: 56, r: Math.max(40, 12 + 6.5 * Math.max(0, ...base.map((b) => b.label.length))), t: 16, b: 50 + LEGEND_ROW * series.length };
  const H = 280 + m.b;
  const all = task.curves.flatMap((c) => c.points.filter((p) => x in p && y in p));
  const xs = all.map((p) => p[x]);
  const ys = [...all.map((p) => p[y]), ...base.map((b) => b.values[y])];
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y === 'success' || y.endsWith('rate')) [y0, y1] = [Math.min(0, y0), Math.max(1, y1)];
  const sx = (v: number) => m.l + ((v - x0) / (x1 - x0 || 1)) * (W - m.l - m.r);
  const sy = (v: number) => H - m.b - ((v - y0) / (y1 - y0 || 1)) * (H - m.t - m.b);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': `${y} by ${x}` });
  for (const t of ticks(y0, y1)) {
    root.append(svg('line', { x1: m.l, x2: W - m.r, y1: sy(t), y2: sy(t), class: 'gridline' }), svg('text', { x: m.l - 6, y: sy(t) + 4, 'text-anchor': 'end', class: 'tick' }, fmt(t, 2)));
  }
  for (const t of ticks(x0, x1, 6)) root.append(svg('text', { x: sx(t), y: H - m.b + 16, 'text-anchor': 'middle', class: 'tick' }, fmt(t, 0)));
  root.append(
    svg('line', { x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, class: 'axis' }),
    svg('line', { x1: m.l, x2: m.l, y1: m.t, y2: H - m.b, class: 'axis' }),
    svg('text', { x: (m.l + W - m.r) / 2, y: H - m.b + 34, 'text-anchor': 'middle', class: 'label' }, x),
    svg('text', { x: 14, y: (m.t + H - m.b) / 2, 'text-anchor': 'middle', class: 'label', transform: `rotate(-90 14 ${(m.t + H - m.b) / 2})` }, y),
  );
  const labelYs = spreadApart(base.map((b) => sy(b.values[y]) + 4), LABEL_GAP, m.t + 4, H - m.b + 4);
  base.forEach((b, i) => {
    const v = sy(b.values[y]);
    root.append(svg('line', { x1: m.l, x2: W - m.r, y1: v, y2: v, class: 'baseline' }), svg('text', { x: W - m.r + 4, y: labelYs[i], class: 'tick baseline-label' }, b.label));
  });
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const curve = seedCurve(s.seeds, x, y);
    if (s.seeds.length > 1) {
      // The 95% interval of the mean over seeds, the same numbers as the report's tables.
      const edge = [...curve.map(([a, b]) => `${sx(a)},${sy(b.hi)}`), ...[...curve].reverse().map(([a, b]) => `${sx(a)},${sy(b.lo)}`)];
      root.append(svg('polygon', { points: edge.join(' '), fill: colour, 'fill-opacity': 0.15, stroke: 'none', class: 'band', 'data-algo': s.algo }));
    }
    root.append(svg('polyline', { points: curve.map(([a, b]) => `${sx(a)},${sy(b.mean)}`).join(' '), fill: 'none', stroke: colour, 'stroke-width': 2, class: 'series', 'data-algo': s.algo }));
    for (const [a, b] of curve) root.append(svg('circle', { cx: sx(a), cy: sy(b.mean), r: 2.5, fill: colour }));
    const ly = H - m.b + 56 + i * LEGEND_ROW;
    root.append(svg('rect', { x: m.l, y: ly - 5, width: 12, height: 3, fill: colour }), svg('text', { x: m.l + 18, y: ly, class: 'legend' }, s.seeds.length > 1 ? `${s.algo} (${s.seeds.length} seeds, band: 95% interval)` : s.algo));
  });
  return root;
}

export async function benchmarkView(main: HTMLElement, run: RunInfo): Promise<void> {
  const data = await api<{ tasks: Task[]; settings: Record<string, unknown>; notices: Notice[] }>(`runs/${encodeURIComponent(run.id)}/benchmark`);
  clear(main, h('h1', {}, run.name), h('div', { class: 'path' }, run.path), notices(data.notices));
  for (const task of data.tasks) {
    const chartBox = h('div', { class: 'chart-box' });
    const xAxes = ['iter', 'env_steps', 'seconds'].filter((k) => task.curves.some((c) => c.points.some((p) => k in p)));
    let metric = task.metrics.includes('success') ? 'success' : (task.metrics[0] ?? '');
    let axis = xAxes[0] ?? 'iter';
    const draw = () => clear(chartBox, task.curves.length && metric ? learningCurveChart(task, axis, metric) : h('p', { class: 'empty' }, 'No curve to draw.'));
    const pick = (label: string, opts: string[], cur: string, on: (v: string) => void) =>
      h('label', {}, `${label} `, h('select', { onchange: (e: Event) => { on((e.target as HTMLSelectElement).value); draw(); } }, ...opts.map((o) => h('option', { value: o, selected: o === cur }, o))));
    const algos = [...new Set(task.curves.map((c) => c.algorithm))];
    // The last point of a seed's curve is its final held-out evaluation.
    const final = (a: string, k: string) => {
      const vals = task.curves.filter((c) => c.algorithm === a).map((c) => c.points[c.points.length - 1]?.[k]).filter((v) => v !== undefined);
      if (!vals.length) return '–';
      const r = meanInterval(vals);
      return vals.length > 1 ? `${fmt(r.mean)} [${fmt(r.lo)}, ${fmt(r.hi)}]` : fmt(r.mean);
    };
    main.append(
      h(
        'section',
        { class: 'task', 'data-task': task.name },
        h('h2', {}, task.name, task.env_id ? h('span', { class: 'muted' }, ` · ${task.env_id}`) : null),
        task.description ? h('p', { class: 'muted' }, task.description) : null,
        h('div', { class: 'filters' }, pick('metric', task.metrics, metric, (v) => (metric = v)), pick('x axis', xAxes, axis, (v) => (axis = v))),
        chartBox,
        h(
          'table',
          { class: 'grid-table' },
          h('thead', {}, h('tr', {}, h('th', {}, 'algorithm'), ...task.metrics.map((k) => h('th', {}, `final ${k}`)))),
          h(
            'tbody',
            {},
            ...task.baselines.map((b) => h('tr', { class: 'muted' }, h('td', {}, b.label), ...task.metrics.map((k) => h('td', { class: 'num' }, k in b.values ? fmt(b.values[k]) : '–')))),
            ...algos.map((a) => h('tr', {}, h('td', {}, a), ...task.metrics.map((k) => h('td', { class: 'num' }, final(a, k))))),
          ),
        ),
      ),
    );
    draw();
  }
}
