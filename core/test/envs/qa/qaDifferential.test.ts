/**
 * The seeded subset of the QA differential (core/bench/qaDifferential.ts) in `npm test`: the corpus
 * is generated again, graded by the real qa:/logic: envs, and compared with GEM's verdicts checked in
 * (gem-llm 0.1.0 QaEnv, written by the benchmark with --fixture). A disagreement must be of a kind
 * listed as deliberate, with its reason; every listed kind must still disagree somewhere.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateQaCorpus } from '../../../bench/qaDifferential/corpus.ts';
import { QA_DELIBERATE_DIFFERENCES } from '../../../bench/qaDifferential/deliberate.ts';
import { gradeQaWithGemTs, qaCaseDigest } from '../../../bench/qaDifferential/gradeOurs.ts';

interface FixtureCase {
  id: number;
  kind: string;
  digest: string;
  gem: number | 'raised';
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/qaDifferential.json', import.meta.url), 'utf8')) as { seed: number; goldsPerType: number; cases: FixtureCase[] };

describe('QA envs vs GEM on the generated corpus (seeded subset)', async () => {
  const corpus = generateQaCorpus({ seed: fixture.seed, goldsPerType: fixture.goldsPerType });
  const cases = fixture.cases.map((f) => corpus[f.id]);
  const ours = await gradeQaWithGemTs(cases);

  it('regenerates the same cases the GEM verdicts were taken on', () => {
    expect(fixture.cases.length).toBeGreaterThan(300);
    expect(fixture.cases.map((f) => [f.kind, f.digest])).toEqual(cases.map((c) => [c.kind, qaCaseDigest(c)]));
    expect(ours.size).toBe(cases.length);
  });

  it('covers every gold type and kind of perturbation', () => {
    const types = new Set(cases.map((c) => c.kind.split('/')[0]));
    expect([...types].sort()).toEqual(['bool', 'float', 'float_frac', 'int', 'list', 'str']);
    expect(new Set(cases.map((c) => c.kind)).size).toBe(new Set(corpus.map((c) => c.kind)).size);
  });

  it('agrees with GEM everywhere outside the listed deliberate differences', () => {
    const unlisted = fixture.cases.filter((f) => ours.get(f.id) !== f.gem && !QA_DELIBERATE_DIFFERENCES[f.kind]);
    expect(unlisted.map((f) => `#${f.id} ${f.kind}: gem-ts ${ours.get(f.id)} GEM ${f.gem}`)).toEqual([]);
  });

  it('still differs on every listed kind (no stale entries), always in the intended direction', () => {
    for (const kind of Object.keys(QA_DELIBERATE_DIFFERENCES)) {
      const differing = fixture.cases.filter((f) => f.kind === kind && ours.get(f.id) !== f.gem);
      expect(differing.length, kind).toBeGreaterThan(0);
      for (const f of differing) expect(ours.get(f.id), `#${f.id} ${kind}`).toBe(corpus[f.id].intended ? 1 : 0);
    }
  });

  it('gives the intended verdict on every case', () => {
    const wrong = cases.filter((c) => ours.get(c.id) !== (c.intended ? 1 : 0));
    expect(wrong.map((c) => `#${c.id} ${c.kind} ${JSON.stringify(c.reply)}`)).toEqual([]);
  });
});
