/**
 * Python's idea of whitespace, for graders whose rule is GEM's `str.strip()` / `str.split()`. JS's
 * `\s` and `trim()` use another set: they treat U+FEFF as space, and do not treat U+001C–U+001F
 * (information separators) or U+0085 (next line) as space, which Python does.
 */

/** Every character for which Python's `str.isspace()` is true. */
const PY_SPACE_CHARS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

export const PY_SPACE_RUN = new RegExp(`[${PY_SPACE_CHARS}]+`, 'g');
const PY_EDGES = new RegExp(`^[${PY_SPACE_CHARS}]+|[${PY_SPACE_CHARS}]+$`, 'g');

/** Python's `s.strip()`. */
export function pyStrip(s: string): string {
  return s.replace(PY_EDGES, '');
}

/** Python's `s.split()` (no separator): the runs of non-space characters. */
export function pySplit(s: string): string[] {
  return s.split(PY_SPACE_RUN).filter((w) => w.length > 0);
}
