/**
 * Differential benchmark of the math grader: a generated corpus (./mathDifferential/corpus.ts) of
 * gold answers and the responses models write for them, graded by gem-ts, by math-verify 0.9.0 and
 * by GEM's own reward (gem-llm 0.1.0 `boxed_reward_fn`) in the GEM peer venv, all in the same run.
 * Reports agreement with math-verify per kind for gem-ts (both multi-box rules) and for GEM, the
 * speed ratio to math-verify on the same cases, and every disagreement. Writes
 * core/bench/results/mathDifferential.json.
 *
 *   npm run bench mathDifferential                         (30 golds per kind, seed 1)
 *   npx tsx bench/mathDifferential.ts --golds 10 --seed 7  (a smaller or other corpus)
 *   … --fixture test/fixtures/math/differential.jsonl      (also write a seeded subset + verdicts; paths from core/)
 *   … --peer-cache /tmp/peer.jsonl                         (reuse peer verdicts of the same corpus)
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { MultiBoxRule } from '../src/data/graders/math/mathGrader.ts';
import { generateCorpus, gradeCase, type DifferentialCase } from './mathDifferential/corpus.ts';
import { deliberateDifference } from './mathDifferential/deliberate.ts';
import { gemPeerPython } from './gemPeer.ts';

const { values: args } = parseArgs({
  options: {
    golds: { type: 'string', default: '30' },
    seed: { type: 'string', default: '1' },
    fixture: { type: 'string' },
    'fixture-every': { type: 'string', default: '8' },
    'peer-cache': { type: 'string' },
    seconds: { type: 'string', default: process.env.GEM_BENCH_SECONDS ?? '3' },
  },
});

const PEER = fileURLToPath(new URL('./mathDifferential/peer.py', import.meta.url));

interface PeerVerdict {
  id: number;
  math_verify: boolean;
  gem: boolean;
}
interface PeerTiming {
  cases: number;
  math_verify_seconds: number;
  gem_seconds: number;
}

const caseKey = (c: { gold: string; response: string }) => `${c.gold}\u0000${c.response}`;

function runPeer(python: string, cases: DifferentialCase[]): { verdicts: PeerVerdict[]; timing: PeerTiming } {
  const input = cases.map((c) => JSON.stringify({ id: c.id, gold: c.gold, response: c.response })).join('\n');
  console.log(`grading ${cases.length} cases with math-verify and GEM (minutes) …`);
  const r = spawnSync(python, [PEER], { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`peer failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  return { verdicts: lines.filter((l) => !l.timing), timing: lines.find((l) => l.timing)!.timing };
}

/**
 * The peers' verdicts on every case. With --peer-cache, verdicts are kept by (gold, response), so a
 * changed corpus only sends its new cases; the timing is then that of the cases graded in this run.
 */
async function gradeWithPeers(cases: DifferentialCase[]): Promise<{ verdicts: Map<number, PeerVerdict>; timing: PeerTiming }> {
  const cacheFile = args['peer-cache'];
  const cached = new Map<string, { math_verify: boolean; gem: boolean }>();
  if (cacheFile && existsSync(cacheFile)) {
    for (const line of readFileSync(cacheFile, 'utf8').split('\n')) if (line.trim()) {
      const v = JSON.parse(line);
      cached.set(caseKey(v), v);
    }
  }
  const missing = cases.filter((c) => !cached.has(caseKey(c)));
  let timing: PeerTiming = { cases: 0, math_verify_seconds: 0, gem_seconds: 0 };
  if (missing.length) {
    const run = runPeer(await gemPeerPython(), missing);
    timing = run.timing;
    const byId = new Map(missing.map((c) => [c.id, c]));
    const fresh = run.verdicts.map((v) => ({ gold: byId.get(v.id)!.gold, response: byId.get(v.id)!.response, math_verify: v.math_verify, gem: v.gem }));
    for (const v of fresh) cached.set(caseKey(v), v);
    if (cacheFile) appendFileSync(cacheFile, fresh.map((v) => `${JSON.stringify(v)}\n`).join(''));
  }
  const verdicts = new Map(cases.map((c) => [c.id, { id: c.id, ...cached.get(caseKey(c))! }]));
  return { verdicts, timing };
}

function oursPerSecond(cases: DifferentialCase[], seconds: number): { graded: number; seconds: number; perSecond: number } {
  for (const c of cases) gradeCase(c); // JIT warm-up
  let graded = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    for (const c of cases) gradeCase(c);
    graded += cases.length;
  }
  const s = (performance.now() - t0) / 1000;
  return { graded, seconds: s, perSecond: graded / s };
}

interface KindRow {
  kind: string;
  cases: number;
  /** Agreement with math-verify's verdicts. */
  ours: number;
  /** Agreement with math-verify where the listed deliberate differences count as agreed. */
  oursOutsideListed: number;
  oursLastBox: number;
  gem: number;
  /** Agreement with what the generator intended. */
  oursIntended: number;
  mathVerifyIntended: number;
  gemIntended: number;
}

const pct = (x: number, n: number) => (n ? x / n : 1);

async function main(): Promise<void> {
  const cases = generateCorpus(Number(args.seed), Number(args.golds));
  const { verdicts, timing } = await gradeWithPeers(cases);
  const rules: MultiBoxRule[] = ['adjacent', 'last'];
  const graded = cases.map((c) => {
    const peer = verdicts.get(c.id)!;
    const [ours, oursLast] = rules.map((multiBox) => gradeCase(c, multiBox));
    const listed = ours !== peer.math_verify ? deliberateDifference(c, ours)?.why : undefined;
    return { ...c, ours, oursLast, mathVerify: peer.math_verify, gem: peer.gem, listed };
  });

  const kinds = [...new Set(cases.map((c) => c.kind))];
  const row = (kind: string, xs: typeof graded): KindRow => ({
    kind,
    cases: xs.length,
    ours: pct(xs.filter((x) => x.ours === x.mathVerify).length, xs.length),
    oursOutsideListed: pct(xs.filter((x) => x.ours === x.mathVerify || x.listed).length, xs.length),
    oursLastBox: pct(xs.filter((x) => x.oursLast === x.mathVerify).length, xs.length),
    gem: pct(xs.filter((x) => x.gem === x.mathVerify).length, xs.length),
    oursIntended: pct(xs.filter((x) => x.ours === x.intended).length, xs.length),
    mathVerifyIntended: pct(xs.filter((x) => x.mathVerify === x.intended).length, xs.length),
    gemIntended: pct(xs.filter((x) => x.gem === x.intended).length, xs.length),
  });
  const perKind = kinds.map((k) => row(k, graded.filter((x) => x.kind === k)));
  const overall = row('overall', graded);
  const disagreements = graded
    .filter((x) => x.ours !== x.mathVerify)
    .map(({ id, kind, variant, gold, response, intended, ours, mathVerify, gem, listed }) => ({ id, kind, variant, gold, response, intended, ours, mathVerify, gem, listed: listed !== undefined }));
  const unlisted = disagreements.filter((d) => !d.listed);
  // The drop-in promise: no case where GEM gives the intended verdict and gem-ts does not.
  const gemRightOursWrong = graded.filter((x) => x.gem === x.intended && x.ours !== x.intended).map(({ id, kind, variant, gold, response }) => ({ id, kind, variant, gold, response }));

  const speed = oursPerSecond(cases, Number(args.seconds));
  const mathVerifyPerSecond = timing.cases / timing.math_verify_seconds;
  const gemPerSecond = timing.cases / timing.gem_seconds;

  const f = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    '| kind | cases | gem-ts = math-verify | same, listed differences aside | gem-ts, last box only | GEM = math-verify | right (gem-ts / math-verify / GEM) |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...[...perKind, overall].map(
      (k) => `| ${k.kind === 'overall' ? '**overall**' : k.kind} | ${k.cases} | ${f(k.ours)} | ${f(k.oursOutsideListed)} | ${f(k.oursLastBox)} | ${f(k.gem)} | ${f(k.oursIntended)} / ${f(k.mathVerifyIntended)} / ${f(k.gemIntended)} |`,
    ),
  ];
  console.log(lines.join('\n'));
  const peersTimed = timing.cases > 0;
  console.log(
    `\ngem-ts: ${Math.round(speed.perSecond).toLocaleString('en-US')} responses/s; ` +
      (peersTimed
        ? `math-verify ${mathVerifyPerSecond.toFixed(0)}/s, GEM ${gemPerSecond.toFixed(0)}/s on ${timing.cases} cases of this run; ratio to math-verify ${(speed.perSecond / mathVerifyPerSecond).toFixed(0)}×`
        : 'peers not timed (all their verdicts came from --peer-cache)'),
  );
  console.log(`disagreements with math-verify: ${disagreements.length} (${unlisted.length} not listed in mathDifferential/deliberate.ts)`);
  console.log(`cases where GEM is right and gem-ts wrong: ${gemRightOursWrong.length}`);
  for (const d of gemRightOursWrong.slice(0, 20)) console.log(`  [${d.kind}/${d.variant}] gold ${d.gold}  ‖ ${d.response.replace(/\n/g, ' ').slice(-90)}`);
  for (const d of [...unlisted, ...disagreements.filter((x) => x.listed)].slice(0, 40)) console.log(`  ${d.listed ? 'listed  ' : 'UNLISTED'} [${d.kind}/${d.variant}] ours=${d.ours} mv=${d.mathVerify} gem=${d.gem}  gold ${d.gold}  ‖ ${d.response.replace(/\n/g, ' ').slice(-90)}`);

  const out = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(out, { recursive: true });
  writeFileSync(
    `${out}mathDifferential.json`,
    `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, seed: Number(args.seed), goldsPerKind: Number(args.golds), cases: cases.length, overall, perKind, unlistedDisagreements: unlisted.length, gemRightOursWrong, speed: peersTimed ? { ours: speed, peerCases: timing.cases, mathVerifyPerSecond, gemPerSecond, ratio: speed.perSecond / mathVerifyPerSecond } : { ours: speed }, disagreements, markdown: lines.join('\n') }, null, 2)}\n`,
  );

  if (args.fixture) {
    // A seeded subset with the peers' verdicts, small enough to check in and grade in `npm test`.
    const every = Number(args['fixture-every']);
    const subset = graded.filter((x) => x.id % every === 0 || x.ours !== x.mathVerify);
    writeFileSync(
      args.fixture,
      `${subset.map(({ id, kind, variant, gold, response, intended, mathVerify, gem }) => JSON.stringify({ id, kind, variant, gold, response, intended, math_verify: mathVerify, gem })).join('\n')}\n`,
    );
    console.log(`fixture: ${subset.length} cases → ${args.fixture}`);
  }
}

await main();
