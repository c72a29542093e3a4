/**
 * The foreign corpus (core/bench/mathForeign/corpus.jsonl): answer pairs other projects publish as their
 * own tests (math-verify's suite, verl's and Qwen2.5-Math's grader tests), each with its source, the
 * verdict the source asserts, and math-verify 0.9.0's and GEM's (gem-llm 0.1.0 boxed_reward_fn)
 * verdicts stored beside it by `cd core && npx tsx bench/mathForeign.ts --write-verdicts`.
 * Fails on any boxed case where GEM is right and gem-ts wrong, and below the right-rate floors.
 */
import { describe, expect, it } from 'vitest';
import { gradeForeignCase, isBoxedCase, loadForeignCorpus } from '../../../../bench/mathForeign/corpus.ts';

const cases = loadForeignCorpus().map((c) => ({ ...c, ours: gradeForeignCase(c) }));
const boxed = cases.filter(isBoxedCase);
const prose = cases.filter((c) => !isBoxedCase(c));
const rightShare = (xs: typeof cases) => xs.filter((c) => c.ours === c.expected).length / xs.length;
const show = (c: (typeof cases)[number]) => `${c.id} ${c.source.file}::${c.source.test} | gold ${c.gold.slice(0, 60)} | ${c.response.slice(-60)}`;

describe('math grader on the foreign corpus', () => {
  it('holds named sources, the peers\' verdicts, right and wrong answers', () => {
    expect(cases.length).toBeGreaterThanOrEqual(280);
    expect(new Set(cases.map((c) => c.source.repo)).size).toBeGreaterThanOrEqual(3);
    expect(cases.every((c) => c.source.file && typeof c.gem === 'boolean' && typeof c.math_verify === 'boolean')).toBe(true);
    expect(boxed.filter((c) => !c.expected).length).toBeGreaterThan(20);
  });

  it('no boxed case where GEM is right and gem-ts wrong', () => {
    expect(boxed.filter((c) => c.gem === c.expected && c.ours !== c.expected).map(show)).toEqual([]);
  });

  it('gem-ts is right on at least 97% of the boxed cases, and more often than GEM', () => {
    expect(rightShare(boxed)).toBeGreaterThanOrEqual(0.97);
    expect(rightShare(boxed)).toBeGreaterThan(boxed.filter((c) => c.gem === c.expected).length / boxed.length);
  });

  it('prose cases (no box, eval-only extract_from_prose) stay at their measured floor', () => {
    expect(prose.length).toBeGreaterThan(30);
    expect(rightShare(prose)).toBeGreaterThanOrEqual(0.75);
  });
});
