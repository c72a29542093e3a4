/**
 * Differential benchmark of the code env: a generated corpus (./codeDifferential/corpus.ts) of
 * programming problems with reference solutions and candidate replies, graded in the same run by
 * gem-ts's real `code:CodeContest` env and by GEM's own CodeEnv (gem-llm 0.1.0 in core/bench/.venv-gem,
 * ./codeDifferential/peer.py), both with the same per-test timeout. Reports agreement per reply kind
 * (and for problems with an expected output over 64 KiB apart), the share of reference solutions that
 * score 1 on each side, time per graded reply on each side, and every disagreement, with the ones
 * listed in ./codeDifferential/deliberate.ts marked. Writes core/bench/results/codeDifferential.json.
 *
 *   npm run bench codeDifferential                        (4 problems per family, seed 1, timeout 10 s)
 *   npx tsx bench/codeDifferential.ts --per-family 1      (a smaller corpus)
 *   … --fixture ../test/envs/code/fixtures/codeDifferential.json   (write the npm-test subset)
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { closeSharedSandbox } from '../src/sandbox/sandbox.ts';
import { generateCodeCorpus, type CodeProblem, type CodeReply } from './codeDifferential/corpus.ts';
import { CODE_DELIBERATE_DIFFERENCES, LOAD_DEPENDENT } from './codeDifferential/deliberate.ts';
import { gemTsGrader, type OurVerdict } from './codeDifferential/gradeOurs.ts';
import { gemPeerPython } from './gemPeer.ts';
import { fixtureJson, fixtureSubset, replyDigest } from './codeDifferential/fixture.ts';

const { values: args } = parseArgs({
  options: {
    'per-family': { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    // GEM's own limit: its NameError retry imports numpy and pandas, which alone can take seconds.
    timeout: { type: 'string', default: '10' },
    fixture: { type: 'string' },
  },
});

const PEER = fileURLToPath(new URL('./codeDifferential/peer.py', import.meta.url));

interface PeerVerdict {
  id: number;
  reward?: number;
  error?: string;
  seconds: number;
}

/** GEM's CodeEnv in a peer process that grades the reply ids it is sent, one at a time. */
async function startGemPeer(problems: CodeProblem[], replies: CodeReply[], timeoutS: number) {
  const work = mkdtempSync(join(tmpdir(), 'gem-code-peer-'));
  const corpusPath = join(work, 'corpus.json');
  writeFileSync(corpusPath, JSON.stringify({ problems, replies }));
  const python = await gemPeerPython();
  // GEM runs `python -c …`: the peer venv's interpreter must be the `python` on PATH.
  const env = { ...process.env, PATH: `${dirname(python)}:${process.env.PATH ?? ''}` };
  const child = spawn(python, [PEER, corpusPath, String(timeoutS), '--serve'], { cwd: work, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async grade(id: number): Promise<PeerVerdict> {
      child.stdin.write(`${id}\n`);
      const next = await lines.next();
      if (next.done) throw new Error(`GEM peer exited: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
      return JSON.parse(next.value) as PeerVerdict;
    },
    close() {
      child.stdin.end();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : 0;
};
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const share = (n: number, d: number) => (d ? n / d : 1);

async function main(): Promise<void> {
  const seed = Number(args.seed);
  const perFamily = Number(args['per-family']);
  const timeoutS = Number(args.timeout);
  const { problems, replies } = generateCodeCorpus({ seed, perFamily });
  console.log(`${problems.length} problems (${problems.filter((p) => p.largeOutput).length} with an output over 64 KiB), ${replies.length} replies; timeout ${timeoutS} s`);
  // Interleaved, reply by reply and each side first in turn, so both meet the same machine load.
  const t0 = performance.now();
  const grader = gemTsGrader(problems, timeoutS);
  const peer = await startGemPeer(problems, replies, timeoutS);
  const ours = new Map<number, OurVerdict>();
  const gem = new Map<number, PeerVerdict>();
  try {
    for (const [i, reply] of replies.entries()) {
      if (i % 2 === 0) ours.set(reply.id, await grader.grade(reply));
      gem.set(reply.id, await peer.grade(reply.id));
      if (i % 2 === 1) ours.set(reply.id, await grader.grade(reply));
      if (i % 100 === 99) console.log(`  ${i + 1} replies graded (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
  } finally {
    peer.close();
    await grader.close();
    await closeSharedSandbox();
  }

  const graded = replies.map((r) => {
    const g = gem.get(r.id)!;
    const o = ours.get(r.id)!;
    return {
      ...r,
      large: problems[r.problem].largeOutput,
      ours: o.reward,
      oursFailure: o.failure,
      gem: g.reward ?? Number.NaN,
      gemError: g.error,
      oursSeconds: o.seconds,
      gemSeconds: g.seconds,
      deliberate: CODE_DELIBERATE_DIFFERENCES[`${r.kind}/${r.variant}`],
    };
  });
  type Graded = (typeof graded)[number];
  const row = (name: string, xs: Graded[]) => ({
    kind: name,
    replies: xs.length,
    agreement: share(xs.filter((x) => x.ours === x.gem).length, xs.length),
    agreementOutsideDeliberate: share(xs.filter((x) => x.deliberate || x.ours === x.gem).length, xs.length),
    oursIntended: share(xs.filter((x) => x.ours === x.intended).length, xs.length),
    gemIntended: share(xs.filter((x) => x.gem === x.intended).length, xs.length),
  });
  const kinds = [...new Set(replies.map((r) => r.kind))];
  const perKind = [
    ...kinds.map((k) => row(k, graded.filter((x) => x.kind === k))),
    row('all, outputs ≤ 64 KiB', graded.filter((x) => !x.large)),
    row('all, an output > 64 KiB', graded.filter((x) => x.large)),
    row('overall', graded),
  ];
  const variants = [...new Set(graded.map((x) => `${x.kind}/${x.variant}`))].map((v) => row(v, graded.filter((x) => `${x.kind}/${x.variant}` === v)));
  const refs = graded.filter((x) => x.kind === 'correct');
  const reference = {
    solutions: refs.length,
    oursScoring1: share(refs.filter((x) => x.ours === 1).length, refs.length),
    gemScoring1: share(refs.filter((x) => x.gem === 1).length, refs.length),
    oursScoring1LargeOutput: share(refs.filter((x) => x.large && x.ours === 1).length, refs.filter((x) => x.large).length),
    gemScoring1LargeOutput: share(refs.filter((x) => x.large && x.gem === 1).length, refs.filter((x) => x.large).length),
    oursFailures: refs.filter((x) => x.ours !== 1).map((x) => ({ id: x.id, variant: x.variant, problem: problems[x.problem].id, failure: x.oursFailure })),
  };
  const noTimeout = graded.filter((x) => x.kind !== 'timeout');
  const timing = {
    oursMedianSeconds: median(graded.map((x) => x.oursSeconds)),
    gemMedianSeconds: median(graded.map((x) => x.gemSeconds)),
    oursMeanSecondsWithoutTimeouts: mean(noTimeout.map((x) => x.oursSeconds)),
    gemMeanSecondsWithoutTimeouts: mean(noTimeout.map((x) => x.gemSeconds)),
    oursTotalSeconds: graded.reduce((a, x) => a + x.oursSeconds, 0),
    gemTotalSeconds: graded.reduce((a, x) => a + x.gemSeconds, 0),
  };
  const disagreements = graded
    .filter((x) => x.ours !== x.gem)
    .map((x) => ({ id: x.id, problem: problems[x.problem].id, kind: x.kind, variant: x.variant, ours: x.ours, gem: x.gem, intended: x.intended, oursFailure: x.oursFailure, gemError: x.gemError, deliberate: Boolean(x.deliberate) }));
  const unlisted = disagreements.filter((d) => !d.deliberate);
  const stale = Object.keys(CODE_DELIBERATE_DIFFERENCES).filter((k) => !LOAD_DEPENDENT.has(k) && !disagreements.some((d) => `${d.kind}/${d.variant}` === k));

  const f = (x: number) => `${(x * 100).toFixed(1)}%`;
  const table = [
    '| replies | n | gem-ts = GEM | … outside deliberate differences | gem-ts = intended | GEM = intended |',
    '|---|---:|---:|---:|---:|---:|',
    ...perKind.map((k) => `| ${k.kind === 'overall' ? '**overall**' : k.kind} | ${k.replies} | ${f(k.agreement)} | ${f(k.agreementOutsideDeliberate)} | ${f(k.oursIntended)} | ${f(k.gemIntended)} |`),
  ].join('\n');
  console.log(table);
  console.log(`\nreference solutions scoring 1: gem-ts ${f(reference.oursScoring1)} (large outputs ${f(reference.oursScoring1LargeOutput)}), GEM ${f(reference.gemScoring1)} (large outputs ${f(reference.gemScoring1LargeOutput)}) of ${refs.length}`);
  console.log(`time per graded reply: median gem-ts ${timing.oursMedianSeconds.toFixed(3)} s, GEM ${timing.gemMedianSeconds.toFixed(3)} s; mean without timeouts gem-ts ${timing.oursMeanSecondsWithoutTimeouts.toFixed(3)} s, GEM ${timing.gemMeanSecondsWithoutTimeouts.toFixed(3)} s`);
  console.log(`disagreements: ${disagreements.length} (${unlisted.length} not listed as deliberate)`);
  for (const d of unlisted.slice(0, 40)) console.log(`  #${d.id} ${d.problem} ${d.kind}/${d.variant}: gem-ts ${d.ours} (${d.oursFailure ?? ''}) GEM ${d.gem} ${d.gemError ?? ''}`);
  if (stale.length) console.log(`listed as deliberate but not seen: ${stale.join(', ')}`);

  const out = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(out, { recursive: true });
  writeFileSync(
    `${out}codeDifferential.json`,
    `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0]?.model, cores: cpus().length, seed, perFamily, timeoutS, problems: problems.length, largeOutputProblems: problems.filter((p) => p.largeOutput).length, replies: replies.length, perKind, variants, reference, timing, deliberate: CODE_DELIBERATE_DIFFERENCES, disagreements, unlisted: unlisted.length, stale, markdown: table }, null, 2)}\n`,
  );

  if (args.fixture) {
    const subset = fixtureSubset(problems, replies);
    const fixture = {
      note: 'Seeded subset of the code differential with GEM (gem-llm 0.1.0) verdicts; written by core/bench/codeDifferential.ts --fixture.',
      seed,
      perFamily,
      timeoutS,
      replies: subset.map((r) => ({ id: r.id, kind: r.kind, variant: r.variant, digest: replyDigest(problems[r.problem], r), gem: gem.get(r.id)!.reward ?? null })),
    };
    writeFileSync(args.fixture, fixtureJson(fixture));
    console.log(`fixture: ${subset.length} replies → ${args.fixture}`);
  }
}

await main();
