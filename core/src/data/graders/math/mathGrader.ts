/**
 * The math grader: reads the final `\boxed{}` answer of a response and decides whether it equals
 * any gold answer. Pure TypeScript and bounded (length and size limits instead of timeouts), so it
 * runs in the server's event loop at tens of thousands of answers per second.
 */
import { answersEqual, DEFAULT_COMPARE, type CompareOptions } from './equivalence.ts';
import { finalBoxedList, lastBoxed } from '../lastBoxed.ts';
import { normalizeLatex } from './normalize.ts';
import { parseLatex } from './parse.ts';
import { finalAnswerFromProse } from './prose.ts';
import type { Answer } from './ast.ts';

/** Longer answers are compared as text only (normalised, resp. as given). */
const MAX_PARSE_LENGTH = 1000;
const MAX_INPUT_LENGTH = 4000;

/**
 * Which boxes are the answer when a response has several:
 * - `adjacent` (default): the last box, together with the boxes right before it that form one list
 *   with it (`\boxed{1}, \boxed{2}` or `x=\boxed{1} or x=\boxed{2}`), as math-verify reads them;
 * - `last`: only the last box, GEM's rule.
 */
export type MultiBoxRule = 'adjacent' | 'last';

export interface MathGraderOptions extends Partial<CompareOptions> {
  multiBox?: MultiBoxRule;
  /**
   * With no box in the response, grade the final answer its prose states ("The final answer is
   * $9$."). For evaluation only: a training reward should insist on the box.
   */
  extractFromProse?: boolean;
}

interface Prepared {
  text: string;
  parsed?: Answer;
}

function prepare(raw: string): Prepared {
  // No answer is this long; the text-level rules are not meant for it (some regexes grow
  // quadratically), so it is only ever compared as it is.
  if (raw.length > MAX_INPUT_LENGTH) return { text: raw.trim() };
  const text = normalizeLatex(raw);
  if (text.length === 0 || text.length > MAX_PARSE_LENGTH) return { text };
  try {
    return { text, parsed: parseLatex(text) };
  } catch {
    return { text };
  }
}

const compact = (s: string) => s.replace(/\s+/g, ' ').replace(/ ?([^\w ]) ?/g, '$1');

/** Is `answer` (the content of a box, or any LaTeX answer) equivalent to `gold`? */
export function isEquivalent(answer: string, gold: string, options: Partial<CompareOptions> = {}): boolean {
  const g = prepare(gold);
  const p = prepare(answer);
  if (g.text.length > 0 && compact(g.text) === compact(p.text)) return true;
  if (!g.parsed || !p.parsed) return false;
  try {
    return answersEqual(g.parsed, p.parsed, { ...DEFAULT_COMPARE, ...options });
  } catch {
    // A pathological value (e.g. a huge power) that escaped the limits counts as not equal.
    return false;
  }
}

export interface MathGrade {
  correct: boolean;
  /** The answer that was graded; undefined when the response has no \boxed{} (and no prose answer). */
  extracted?: string;
  /** How the answer was found. */
  source?: 'boxed' | 'prose';
}

function extract(response: string, options: MathGraderOptions): Pick<MathGrade, 'extracted' | 'source'> {
  if ((options.multiBox ?? 'adjacent') === 'last') {
    const last = lastBoxed(response);
    if (last !== undefined) return { extracted: last, source: 'boxed' };
  } else {
    const boxes = finalBoxedList(response);
    if (boxes.length) return { extracted: boxes.join(', '), source: 'boxed' };
  }
  if (options.extractFromProse) {
    const prose = finalAnswerFromProse(response);
    if (prose !== undefined) return { extracted: prose, source: 'prose' };
  }
  return {};
}

/** Grade a response: its final boxed answer against every gold answer (any one counts). */
export function gradeMathResponse(response: string, golds: readonly string[], options: MathGraderOptions = {}): MathGrade {
  const { extracted, source } = extract(response, options);
  if (extracted === undefined) return { correct: false };
  const compare: Partial<CompareOptions> = {};
  if (options.precision !== undefined) compare.precision = options.precision;
  if (options.strict !== undefined) compare.strict = options.strict;
  const correct = golds.some((gold) => isEquivalent(extracted, gold.includes('\\boxed') ? (lastBoxed(gold) ?? gold) : gold, compare));
  return { correct, extracted, source };
}
