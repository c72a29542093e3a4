/**
 * The foreign corpus (core/bench/mathForeign/corpus.jsonl, built by extract.py): graded answer pairs
 * that other projects publish as their own tests, each with its source, the verdict the source
 * asserts, and (filled in by `npm run bench mathForeign -- --write-verdicts`) math-verify 0.9.0's and
 * GEM's verdicts on the same response. Shared by the benchmark and the seeded test.
 */
import { readFileSync } from 'node:fs';
import { gradeMathResponse } from '../../src/data/graders/math/mathGrader.ts';

export interface ForeignCase {
  id: string;
  source: { repo: string; file: string; test: string; version?: string };
  gold: string;
  /** The prediction as the source wrote it. */
  pred: string;
  /** The verdict the source asserts. */
  expected: boolean;
  /** The source's precision / strict, where it sets them (match_types only matter to math-verify). */
  config: { precision?: number; strict?: boolean; match_types?: string[] };
  /** What a math env grades: the prediction itself when boxed, else its answer in one box, else as written (prose). */
  response: string;
  shape: 'boxed' | 'wrapped' | 'prose';
  math_verify?: boolean;
  gem?: boolean;
}

export const CORPUS_PATH = new URL('./corpus.jsonl', import.meta.url);

export function loadForeignCorpus(): ForeignCase[] {
  return readFileSync(CORPUS_PATH, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ForeignCase);
}

/** gem-ts's verdict: a math env's grading (boxed answer), or for prose cases eval's extract_from_prose. */
export function gradeForeignCase(c: ForeignCase): boolean {
  return gradeMathResponse(c.response, [c.gold], {
    ...(c.config.precision !== undefined ? { precision: c.config.precision } : {}),
    ...(c.config.strict !== undefined ? { strict: c.config.strict } : {}),
    extractFromProse: c.shape === 'prose',
  }).correct;
}

/** The cases a math env grades by its box (the headline); prose cases are reported apart. */
export const isBoxedCase = (c: ForeignCase) => c.shape !== 'prose';
