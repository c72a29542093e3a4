/**
 * Differential benchmark of the QA envs: a generated corpus (./qaDifferential/corpus.ts) of typed gold
 * answers and perturbed replies, graded in the same run by gem-ts's real `qa:HotpotQA` and
 * `logic:RuleTaker-d0` envs and by GEM's own QaEnv (gem-llm 0.1.0, ./qaDifferential/peer.py). Reports
 * agreement per gold type and per kind, with the deliberate differences of
 * ./qaDifferential/deliberate.ts apart, and every disagreement. Writes
 * core/bench/results/qaDifferential.json.
 *
 *   npm run bench qaDifferential                              (20 golds per type, seed 1)
 *   … --fixture ../test/envs/qa/fixtures/qaDifferential.json  (write the npm-test subset with GEM's verdicts)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateQaCorpus } from './qaDifferential/corpus.ts';
import { QA_DELIBERATE_DIFFERENCES } from './qaDifferential/deliberate.ts';
import { gemPeerPython } from './gemPeer.ts';
import { fixtureJson } from './codeDifferential/fixture.ts';
import { gradeQaWithGemTs, qaCaseDigest } from './qaDifferential/gradeOurs.ts';

const { values: args } = parseArgs({
  options: {
    golds: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    fixture: { type: 'string' },
  },
});

const PEER = fileURLToPath(new URL('./qaDifferential/peer.py', import.meta.url));

/** GEM's verdict: its reward, or 'raised' when its step raised. */
type GemVerdict = number | 'raised';

const share = (n: number, d: number) => (d ? n / d : 1);

async function main(): Promise<void> {
  const seed = Number(args.seed);
  const goldsPerType = Number(args.golds);
  const cases = generateQaCorpus({ seed, goldsPerType });
  await gradeQaWithGemTs(cases); // warm-up: the JIT and the envs' first loads
  const t0 = performance.now();
  const ours = await gradeQaWithGemTs(cases);
  const oursSeconds = (performance.now() - t0) / 1000;

  const work = mkdtempSync(join(tmpdir(), 'gem-qa-peer-'));
  let gem: Map<number, GemVerdict>;
  let gemSeconds: number;
  try {
    writeFileSync(join(work, 'cases.json'), JSON.stringify(cases));
    const r = spawnSync(await gemPeerPython(), [PEER, join(work, 'cases.json')], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`GEM peer failed: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    gemSeconds = rows.find((x) => x.timing).timing.seconds;
    gem = new Map(rows.filter((x) => !x.timing).map((x) => [x.id, x.error ? 'raised' : x.reward]));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  const graded = cases.map((c) => ({ ...c, ours: ours.get(c.id)!, gem: gem.get(c.id)!, deliberate: QA_DELIBERATE_DIFFERENCES[c.kind] }));
  type Graded = (typeof graded)[number];
  const agrees = (x: Graded) => x.ours === x.gem;
  const row = (name: string, xs: Graded[]) => ({
    kind: name,
    cases: xs.length,
    agreement: share(xs.filter(agrees).length, xs.length),
    agreementOutsideDeliberate: share(xs.filter((x) => x.deliberate || agrees(x)).length, xs.length),
    oursIntended: share(xs.filter((x) => x.ours === (x.intended ? 1 : 0)).length, xs.length),
    gemIntended: share(xs.filter((x) => x.gem === (x.intended ? 1 : 0)).length, xs.length),
    gemRaised: xs.filter((x) => x.gem === 'raised').length,
  });
  const types = [...new Set(cases.map((c) => c.kind.split('/')[0]))];
  const perType = [...types.map((t) => row(t, graded.filter((x) => x.kind.startsWith(`${t}/`)))), row('overall', graded)];
  const perKind = [...new Set(cases.map((c) => c.kind))].map((k) => row(k, graded.filter((x) => x.kind === k)));
  const disagreements = graded.filter((x) => !agrees(x)).map(({ id, kind, gold, reply, ours: o, gem: g, intended, deliberate }) => ({ id, kind, gold, reply, ours: o, gem: g, intended, deliberate: Boolean(deliberate) }));
  const unlisted = disagreements.filter((d) => !d.deliberate);
  const stale = Object.keys(QA_DELIBERATE_DIFFERENCES).filter((k) => !disagreements.some((d) => d.kind === k));

  const f = (x: number) => `${(x * 100).toFixed(1)}%`;
  const table = [
    '| gold type | cases | gem-ts = GEM | … outside deliberate differences | gem-ts = intended | GEM = intended | GEM raised |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...perType.map((k) => `| ${k.kind === 'overall' ? '**overall**' : k.kind} | ${k.cases} | ${f(k.agreement)} | ${f(k.agreementOutsideDeliberate)} | ${f(k.oursIntended)} | ${f(k.gemIntended)} | ${k.gemRaised} |`),
  ].join('\n');
  console.log(table);
  console.log(`\ntime: gem-ts ${((oursSeconds / cases.length) * 1e6).toFixed(0)} µs per reply (env reset + step), GEM ${((gemSeconds / cases.length) * 1e6).toFixed(0)} µs (set_state + step)`);
  console.log(`disagreements: ${disagreements.length} (${unlisted.length} not listed as deliberate)`);
  for (const d of unlisted.slice(0, 40)) console.log(`  #${d.id} ${d.kind}: gem-ts ${d.ours} GEM ${d.gem}  gold ${JSON.stringify(d.gold)} ‖ ${JSON.stringify(d.reply.slice(-80))}`);
  if (stale.length) console.log(`listed as deliberate but not seen: ${stale.join(', ')}`);

  const out = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(out, { recursive: true });
  writeFileSync(
    `${out}qaDifferential.json`,
    `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, seed, goldsPerType, cases: cases.length, perType, perKind, timing: { oursSeconds, gemSeconds }, deliberate: QA_DELIBERATE_DIFFERENCES, disagreements, unlisted: unlisted.length, stale, markdown: table }, null, 2)}\n`,
  );

  if (args.fixture) {
    // Every third case and every disagreement, with GEM's verdict: small enough to check in.
    const subset = graded.filter((x) => x.id % 3 === 0 || !agrees(x));
    const fixture = {
      note: 'Seeded subset of the QA differential with GEM (gem-llm 0.1.0) verdicts; written by core/bench/qaDifferential.ts --fixture.',
      seed,
      goldsPerType,
      cases: subset.map((x) => ({ id: x.id, kind: x.kind, digest: qaCaseDigest(x), gem: x.gem })),
    };
    writeFileSync(args.fixture, fixtureJson(fixture));
    console.log(`fixture: ${subset.length} cases → ${args.fixture}`);
  }
}

await main();
