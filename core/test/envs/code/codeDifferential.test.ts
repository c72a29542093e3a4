/**
 * The seeded subset of the code differential (core/bench/codeDifferential.ts) in `npm test`: the
 * corpus is generated again and the subset graded by the real code:CodeContest env in the sandbox,
 * then compared with GEM's verdicts checked in (gem-llm 0.1.0 CodeEnv, written by the benchmark with
 * --fixture). Every reference solution must score 1, large outputs and fast-I/O idioms included; a
 * disagreement with GEM must be listed as deliberate, and every listed one must still disagree.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCodeCorpus } from '../../../bench/codeDifferential/corpus.ts';
import { CODE_DELIBERATE_DIFFERENCES, LOAD_DEPENDENT } from '../../../bench/codeDifferential/deliberate.ts';
import { fixtureSubset, replyDigest } from '../../../bench/codeDifferential/fixture.ts';
import { gradeWithGemTs, type OurVerdict } from '../../../bench/codeDifferential/gradeOurs.ts';
import { closeSharedSandbox } from '../../../src/sandbox/sandbox.ts';
import { bwrapWorks } from '../../sandbox/sandboxSupport.ts';

interface FixtureReply {
  id: number;
  kind: string;
  variant: string;
  digest: string;
  gem: number | null;
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/codeDifferential.json', import.meta.url), 'utf8')) as { seed: number; perFamily: number; replies: FixtureReply[] };
const { problems, replies } = generateCodeCorpus({ seed: fixture.seed, perFamily: fixture.perFamily });
const subset = fixtureSubset(problems, replies);
const key = (r: { kind: string; variant: string }) => `${r.kind}/${r.variant}`;

afterAll(() => closeSharedSandbox());

describe('the code differential subset', () => {
  it('is the subset the GEM verdicts were taken on, over every kind of reply and large outputs', () => {
    expect(fixture.replies.map((f) => [f.id, f.digest])).toEqual(subset.map((r) => [r.id, replyDigest(problems[r.problem], r)]));
    expect(new Set(subset.map(key))).toEqual(new Set(replies.map(key)));
    expect(subset.filter((r) => r.kind === 'correct' && problems[r.problem].largeOutput).length).toBeGreaterThanOrEqual(20);
  });
});

// Timeouts only decide the endless-loop replies here (0 at any limit); 2 s keeps the run short.
describe.skipIf(!bwrapWorks())('code:CodeContest vs GEM on the generated corpus (seeded subset)', async () => {
  const ours: Map<number, OurVerdict> = bwrapWorks() ? await gradeWithGemTs(problems, subset, 2) : new Map();
  const gem = new Map(fixture.replies.map((f) => [f.id, f.gem]));

  it('scores every reference solution 1, outputs over 64 KiB and every I/O idiom included', () => {
    const refs = subset.filter((r) => r.kind === 'correct');
    expect(refs.filter((r) => ours.get(r.id)!.reward !== 1).map((r) => `${problems[r.problem].id} ${r.variant}: ${ours.get(r.id)!.failure}`)).toEqual([]);
  });

  it('gives the intended verdict on every reply', () => {
    expect(subset.filter((r) => ours.get(r.id)!.reward !== r.intended).map((r) => `#${r.id} ${key(r)}: ${ours.get(r.id)!.reward}`)).toEqual([]);
  });

  it('agrees with GEM outside the listed deliberate differences', () => {
    const unlisted = subset.filter((r) => ours.get(r.id)!.reward !== gem.get(r.id) && !CODE_DELIBERATE_DIFFERENCES[key(r)]);
    expect(unlisted.map((r) => `#${r.id} ${key(r)}: gem-ts ${ours.get(r.id)!.reward} GEM ${gem.get(r.id)}`)).toEqual([]);
  });

  it('still differs from GEM on every listed kind (no stale entries)', () => {
    for (const k of Object.keys(CODE_DELIBERATE_DIFFERENCES).filter((x) => !LOAD_DEPENDENT.has(x))) {
      const listed = subset.filter((r) => key(r) === k);
      expect(listed.length, k).toBeGreaterThan(0);
      expect(listed.some((r) => ours.get(r.id)!.reward !== gem.get(r.id)), k).toBe(true);
    }
  });
});
