/**
 * The seeded subset of the differential corpus (core/bench/mathDifferential/): generated golds and
 * the responses models write for them, with math-verify 0.9.0's and GEM's (gem-llm 0.1.0
 * boxed_reward_fn) verdicts computed in the GEM peer venv. Regenerate with
 *   cd core && npx tsx bench/mathDifferential.ts --fixture test/fixtures/math/differential.jsonl --fixture-every 12
 * Every disagreement with math-verify must be a listed deliberate difference (with its reason);
 * a listed difference that no longer occurs fails too, so the list cannot rot.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gradeCase, type DifferentialCase } from '../../../../bench/mathDifferential/corpus.ts';
import { DELIBERATE_DIFFERENCES, deliberateDifference } from '../../../../bench/mathDifferential/deliberate.ts';

type FixtureCase = DifferentialCase & { math_verify: boolean; gem: boolean };

const cases: FixtureCase[] = readFileSync(new URL('../../../fixtures/math/differential.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

const graded = cases.map((c) => ({ ...c, ours: gradeCase(c), oursLast: gradeCase(c, 'last') }));
const kinds = [...new Set(cases.map((c) => c.kind))];

describe('math grader on the differential corpus (seeded subset, peer verdicts checked in)', () => {
  it('covers every kind of answer with hundreds of cases, right and wrong', () => {
    expect(cases.length).toBeGreaterThanOrEqual(500);
    expect(kinds.length).toBeGreaterThanOrEqual(24);
    for (const k of ['thousands', 'matrix', 'ratio', 'pair_list', 'equation', 'approximation', 'big_operator', 'set', 'prose']) expect(kinds).toContain(k);
    expect(cases.filter((c) => c.math_verify).length).toBeGreaterThan(200);
    expect(cases.filter((c) => !c.math_verify).length).toBeGreaterThan(100);
  });

  it('disagrees with math-verify only where a deliberate difference is listed', () => {
    const unlisted = graded.filter((c) => c.ours !== c.math_verify && !deliberateDifference(c, c.ours));
    expect(unlisted.map((c) => `${c.kind}/${c.variant}: ours ${c.ours}, math-verify ${c.math_verify} | ${c.gold} | ${c.response}`)).toEqual([]);
  });

  it('every listed difference still occurs (otherwise drop it from the list)', () => {
    for (const d of DELIBERATE_DIFFERENCES) {
      const hits = graded.filter((c) => c.ours !== c.math_verify && deliberateDifference(c, c.ours) === d);
      expect(hits.length, `${d.kind} ${d.variant}`).toBeGreaterThan(0);
    }
  });

  it.each(kinds)('%s: gem-ts is right at least as often as GEM (right = the generator\'s intent)', (kind) => {
    const xs = graded.filter((c) => c.kind === kind);
    const right = (pick: (c: (typeof graded)[number]) => boolean) => xs.filter((c) => pick(c) === c.intended).length;
    expect(right((c) => c.ours)).toBeGreaterThanOrEqual(right((c) => c.gem));
  });

  it('the multi-box rule matters: reading a list of boxes together agrees with math-verify more than the last box alone', () => {
    const agree = (pick: (c: (typeof graded)[number]) => boolean) => graded.filter((c) => pick(c) === c.math_verify).length;
    const sets = graded.filter((c) => c.variant.startsWith('several boxes'));
    expect(sets.length).toBeGreaterThan(5);
    expect(agree((c) => c.ours)).toBeGreaterThan(agree((c) => c.oursLast));
    expect(sets.every((c) => c.ours === c.math_verify)).toBe(true);
  });
});
