/**
 * The math grader: reads the final `\boxed{}` answer of a response and decides whether it equals
 * any gold answer. Pure TypeScript and bounded (length and size limits instead of timeouts), so it
 * runs in the server's event loop at tens of thousands of answers per second.
 */
import { answersEqual, DEFAULT_COMPARE, type CompareOptions } from './equivalence.ts';
import { boxedSpans, finalBoxedList, lastBoxed } from '../lastBoxed.ts';
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

function parsedEqual(g: Prepared, p: Prepared, options: Partial<CompareOptions>): boolean {
  if (!g.parsed || !p.parsed) return false;
  try {
    return answersEqual(g.parsed, p.parsed, { ...DEFAULT_COMPARE, ...options });
  } catch {
    // A pathological value (e.g. a huge power) that escaped the limits counts as not equal.
    return false;
  }
}

/** Two digit runs joined by a comma where no thousands reading fits (`2500,75`, `3,14`; not `2,500`). */
const DECIMAL_COMMA = /^(-?\d+),(\d{1,2}|\d{4,})$/;
const isNumber = (a: Prepared) => a.parsed !== undefined && a.parsed.k === 'num';

/**
 * A decimal comma: against a single number, `2500,75` can only mean 2500.75 (as a list it could never
 * equal a number), so that side is read again with a decimal point.
 */
function decimalCommaEqual(g: Prepared, p: Prepared, options: Partial<CompareOptions>): boolean {
  const reread = (a: Prepared): Prepared | undefined => (DECIMAL_COMMA.test(a.text) ? prepare(a.text.replace(DECIMAL_COMMA, '$1.$2')) : undefined);
  if (isNumber(g)) {
    const p2 = reread(p);
    if (p2 && parsedEqual(g, p2, options)) return true;
  }
  if (isNumber(p)) {
    const g2 = reread(g);
    if (g2 && parsedEqual(g2, p, options)) return true;
  }
  return false;
}

/** Is `answer` (the content of a box, or any LaTeX answer) equivalent to `gold`? */
export function isEquivalent(answer: string, gold: string, options: Partial<CompareOptions> = {}): boolean {
  const g = prepare(gold);
  const p = prepare(answer);
  if (g.text.length > 0 && compact(g.text) === compact(p.text)) return true;
  return parsedEqual(g, p, options) || decimalCommaEqual(g, p, options);
}

/** Text outside the boxes of a gold shorter than this is a label ("apples and … pears"), not a solution. */
const MAX_GOLD_PROSE = 40;
/** Words outside math that make an unboxed gold a worked solution, whose final answer is graded. */
const SOLUTION_WORDS = 8;

/** Between two boxes of a gold: nothing, or a separator (`,` `;` `and` `or`) with at most two words beside it (`apples and`). */
function joinsGoldBoxes(gap: string): boolean {
  const g = gap.replace(/\\text\s*\{([^{}]*)\}/g, ' $1 ');
  // Boxes side by side in a gold (`$\boxed{1}\boxed{2}$`) list its answers.
  if (g.replace(/\$|\s/g, '') === '') return true;
  const words = g.match(/[A-Za-z]{2,}/g) ?? [];
  const separators = words.filter((w) => /^(?:and|or)$/i.test(w)).length + (g.match(/[,;]/g)?.length ?? 0);
  return separators > 0 && words.length - separators <= 2;
}

/**
 * The answer a gold gives, as datasets write golds:
 * - boxes in a short text (`\boxed{3} apples and \boxed{5} pears`, `\(\boxed{2}\) and \(\boxed{-3}\)`):
 *   all of them, as one list;
 * - a worked solution with boxes: its final box (with the boxes that form one list with it);
 * - a worked solution without a box: the final answer its prose states;
 * - otherwise the gold as written (`$…$`, `\(…\)` and the like are removed when it is read).
 */
export function goldAnswer(gold: string): string {
  if (gold.length > MAX_INPUT_LENGTH) return gold;
  if (gold.includes('\\boxed') || gold.includes('\\fbox')) {
    const spans = boxedSpans(gold);
    let outside = gold;
    for (const b of [...spans].reverse()) outside = outside.slice(0, b.start) + outside.slice(b.end);
    if (spans.length > 1 && outside.replace(/\$|\\[()[\]]|\\q?quad|[\s.,;\\]/g, '').length <= MAX_GOLD_PROSE && spans.slice(1).every((b, i) => joinsGoldBoxes(gold.slice(spans[i].end, b.start)))) {
      return spans.map((b) => b.content).join(', ');
    }
    const list = finalBoxedList(gold);
    return list.length ? list.join(', ') : (spans.at(-1)?.content ?? gold);
  }
  const prose = gold.replace(/\$\$[^$]*\$\$|\$[^$]*\$|\\\([\s\S]*?\\\)|\\\[[\s\S]*?\\\]/g, ' ');
  if (prose !== gold && (prose.match(/[A-Za-z]{2,}/g)?.length ?? 0) >= SOLUTION_WORDS) return finalAnswerFromProse(gold) ?? gold;
  return gold;
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
  const correct = golds.some((gold) => isEquivalent(extracted, goldAnswer(gold), compare));
  return { correct, extracted, source };
}
