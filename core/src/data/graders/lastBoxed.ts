/**
 * The content of `\boxed{…}` (or `\fbox{…}`) answers in a response, braces matched; GEM's graders
 * all read the final boxed answer.
 */

export interface BoxedSpan {
  content: string;
  /** Where `\boxed` starts and where the box ends (one past its closing brace). */
  start: number;
  end: number;
}

/** The box whose command starts at `at`, or undefined when its braces never close. */
function boxAt(text: string, at: number): BoxedSpan | undefined {
  const isBoxed = text.startsWith('\\boxed', at);
  let i = at + (isBoxed ? 6 : 5);
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  if (text[i] !== '{') {
    // `\boxed 5`: a space-separated single token, as TeX reads it.
    const token = /^\s+([^\s$]+)/.exec(text.slice(at + 6));
    return isBoxed && token ? { content: token[1], start: at, end: at + 6 + token[0].length } : undefined;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '\\' && j + 1 < text.length) {
      j++; // an escaped brace \{ \} does not count
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return { content: text.slice(i + 1, j), start: at, end: j + 1 };
  }
  return undefined;
}

function lastBoxStart(text: string, before: number): number {
  return Math.max(text.lastIndexOf('\\boxed', before), text.lastIndexOf('\\fbox', before));
}

/** Every box of the text, in order (at most `max`); an unclosed last box runs to the end of the text. */
export function boxedSpans(text: string, max = 16): BoxedSpan[] {
  const out: BoxedSpan[] = [];
  for (let at = text.search(/\\(?:boxed|fbox)/); at >= 0 && out.length < max; ) {
    const box = boxAt(text, at);
    const brace = text.indexOf('{', at);
    if (!box) {
      if (brace >= 0) out.push({ content: text.slice(brace + 1).trim(), start: at, end: text.length });
      break;
    }
    out.push(box);
    const next = text.slice(box.end).search(/\\(?:boxed|fbox)/);
    at = next < 0 ? -1 : box.end + next;
  }
  return out;
}

/** The content of the LAST box. Undefined when there is none or its braces never close. */
export function lastBoxed(text: string): string | undefined {
  const at = lastBoxStart(text, text.length);
  return at < 0 ? undefined : boxAt(text, at)?.content;
}

/**
 * Between two boxes of one answer list: math delimiters, spacing (`\quad`), separators (`,` `;` `and`
 * `or`, also in `\text{}`), a part label ("for part (a)") and an optional `x =` before the next box,
 * nothing else (`$\boxed{1}$, $\boxed{2}$`, `$x=\boxed{1}$ or $x=\boxed{2}$`,
 * `\boxed{-2} \quad \text{and} \quad \boxed{1}`). Prose between boxes ("so the answer is") ends the list.
 */
function isListGap(gap: string): boolean {
  // Boxes with only a space between them are not a list (`\boxed{1} \boxed{2}` grades 2).
  if (!/[,;]|\b(?:and|or)\b|\\q?quad/.test(gap)) return false;
  const g = gap
    .replace(/\\text\s*\{([^{}]*)\}/g, ' $1 ')
    .replace(/\$|\\[()[\]]|\\q?quad(?![a-zA-Z])|\\[,;:! ]|~/g, ' ')
    .replace(/[A-Za-z](?:_\{?\w+\}?)?\s*=\s*$/, '');
  return /^(?:\s|,|;|\b(?:and|or|for|parts?)\b|\(\w\))*$/i.test(g);
}
const MAX_BOXES = 16;
/** A longer gap between two boxes is prose, whatever it holds. */
const MAX_GAP = 120;

/**
 * The final boxed answer, where several boxes in a row that form one list (separated only by
 * commas, `and` or `or`) count together: `\boxed{1}, \boxed{2}` → ["1", "2"]. A box after prose
 * is on its own. Empty when the response has no box.
 */
export function finalBoxedList(text: string): string[] {
  const at = lastBoxStart(text, text.length);
  if (at < 0) return [];
  const last = boxAt(text, at);
  if (!last) return [];
  const out = [last];
  while (out.length < MAX_BOXES) {
    const prevAt = lastBoxStart(text, out[0].start - 1);
    if (prevAt < 0) break;
    const prev = boxAt(text, prevAt);
    const gap = prev ? out[0].start - prev.end : -1;
    if (!prev || gap < 0 || gap > MAX_GAP || !isListGap(text.slice(prev.end, out[0].start))) break;
    out.unshift(prev);
  }
  return out.map((b) => b.content);
}
