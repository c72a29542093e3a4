/**
 * The math grader on a foreign corpus: graded answer pairs other projects publish as their own tests
 * (core/bench/mathForeign/corpus.jsonl, sources named per case), graded in one run by gem-ts, by
 * math-verify 0.9.0 (called as the case's source calls it) and by GEM's `boxed_reward_fn` (gem-llm
 * 0.1.0, fast=False) in the GEM peer venv. Prints right% (= the source's verdict) for each, the cases
 * where GEM is right and gem-ts wrong, agreement with math-verify and responses/s; writes
 * core/bench/results/mathForeign.json. --write-verdicts stores the peers' verdicts beside each case
 * in corpus.jsonl (what the seeded test in `npm test` reads).
 *
 *   npm run bench mathForeign
 *   cd core && npx tsx bench/mathForeign.ts --write-verdicts
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gemPeerPython } from './gemPeer.ts';
import { CORPUS_PATH, gradeForeignCase, isBoxedCase, loadForeignCorpus, type ForeignCase } from './mathForeign/corpus.ts';

const { values: args } = parseArgs({
  options: {
    'write-verdicts': { type: 'boolean', default: false },
    seconds: { type: 'string', default: process.env.GEM_BENCH_SECONDS ?? '3' },
  },
});
const PEER = fileURLToPath(new URL('./mathForeign/peer.py', import.meta.url));

interface Timing {
  cases: number;
  math_verify_seconds: number;
  gem_seconds: number;
}

function runPeer(python: string, cases: ForeignCase[]): { verdicts: Map<string, { math_verify: boolean; gem: boolean }>; timing: Timing } {
  const input = cases.map((c) => JSON.stringify({ id: c.id, gold: c.gold, response: c.response, config: c.config })).join('\n');
  console.log(`grading ${cases.length} cases with math-verify and GEM …`);
  const r = spawnSync(python, [PEER], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`peer failed (${python}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  return { verdicts: new Map(lines.filter((l) => !l.timing).map((l) => [l.id, l])), timing: lines.find((l) => l.timing).timing };
}

function oursPerSecond(cases: ForeignCase[], seconds: number) {
  for (const c of cases) gradeForeignCase(c); // JIT warm-up
  let graded = 0;
  const t0 = performance.now();
  while (performance.now() < t0 + seconds * 1000) {
    for (const c of cases) gradeForeignCase(c);
    graded += cases.length;
  }
  const s = (performance.now() - t0) / 1000;
  return { graded, seconds: s, perSecond: graded / s };
}

const cases = loadForeignCorpus();
const load = loadavg()[0];
const { verdicts, timing } = runPeer(await gemPeerPython(), cases);
const graded = cases.map((c) => ({ ...c, ours: gradeForeignCase(c), mathVerify: verdicts.get(c.id)!.math_verify, gemVerdict: verdicts.get(c.id)!.gem }));

const pct = (n: number, d: number) => (d ? (100 * n) / d : 100);
function summary(xs: typeof graded) {
  const right = (pick: (x: (typeof graded)[number]) => boolean) => pct(xs.filter((x) => pick(x) === x.expected).length, xs.length);
  return {
    cases: xs.length,
    right: { gemTs: right((x) => x.ours), mathVerify: right((x) => x.mathVerify), gem: right((x) => x.gemVerdict) },
    agreementWithMathVerify: { gemTs: pct(xs.filter((x) => x.ours === x.mathVerify).length, xs.length), gem: pct(xs.filter((x) => x.gemVerdict === x.mathVerify).length, xs.length) },
    gemRightGemTsWrong: xs.filter((x) => x.gemVerdict === x.expected && x.ours !== x.expected).map((x) => x.id),
  };
}
const boxed = summary(graded.filter(isBoxedCase));
const prose = summary(graded.filter((c) => !isBoxedCase(c)));
const bySource = Object.fromEntries([...new Set(cases.map((c) => c.source.file))].map((f) => [f, summary(graded.filter((c) => c.source.file === f && isBoxedCase(c)))]));
const speed = oursPerSecond(cases.filter(isBoxedCase), Number(args.seconds));
const perSecond = { gemTs: speed.perSecond, mathVerify: timing.cases / timing.math_verify_seconds, gem: timing.cases / timing.gem_seconds };

const f = (x: number) => `${x.toFixed(1)}%`;
const line = (name: string, s: ReturnType<typeof summary>) =>
  `${name}: ${s.cases} cases; right: gem-ts ${f(s.right.gemTs)}, math-verify ${f(s.right.mathVerify)}, GEM ${f(s.right.gem)}; ` +
  `agreement with math-verify: gem-ts ${f(s.agreementWithMathVerify.gemTs)}, GEM ${f(s.agreementWithMathVerify.gem)}; GEM right & gem-ts wrong: ${s.gemRightGemTsWrong.length}`;
console.log(line('boxed cases (a math env grades the box)', boxed));
console.log(line('prose cases (no box; gem-ts with extract_from_prose, GEM pays 0)', prose));
for (const [file, s] of Object.entries(bySource)) console.log(`  ${file}: ${s.cases} boxed, gem-ts ${f(s.right.gemTs)} / math-verify ${f(s.right.mathVerify)} / GEM ${f(s.right.gem)}`);
console.log(`speed: gem-ts ${Math.round(perSecond.gemTs).toLocaleString('en-US')} responses/s, math-verify ${perSecond.mathVerify.toFixed(0)}/s, GEM ${perSecond.gem.toFixed(0)}/s (load ${load.toFixed(1)})`);
const show = (x: (typeof graded)[number]) => `  ${x.id} [${x.source.file}::${x.source.test}] expected ${x.expected} gem-ts ${x.ours} mv ${x.mathVerify} GEM ${x.gemVerdict} | gold ${JSON.stringify(x.gold.slice(0, 80))} | ${JSON.stringify(x.response.slice(-80))}`;
console.log('GEM right, gem-ts wrong:');
for (const x of graded.filter((c) => isBoxedCase(c) && c.gemVerdict === c.expected && c.ours !== c.expected)) console.log(show(x));
console.log('gem-ts wrong (boxed cases):');
for (const x of graded.filter((c) => isBoxedCase(c) && c.ours !== c.expected)) console.log(show(x));

const out = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(
  `${out}mathForeign.json`,
  `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, load, boxed, prose, bySource, perSecond, speed, wrong: graded.filter((c) => c.ours !== c.expected).map((c) => ({ id: c.id, shape: c.shape, expected: c.expected, ours: c.ours, mathVerify: c.mathVerify, gem: c.gemVerdict })) }, null, 2)}\n`,
);
if (args['write-verdicts']) {
  const rows = graded.map(({ ours: _o, mathVerify, gemVerdict, ...c }) => JSON.stringify({ ...c, math_verify: mathVerify, gem: gemVerdict }));
  writeFileSync(CORPUS_PATH, `${rows.join('\n')}\n`);
  console.log(`peers' verdicts written beside each case → ${fileURLToPath(CORPUS_PATH)}`);
}
