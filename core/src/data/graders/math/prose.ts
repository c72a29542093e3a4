/**
 * The final answer a response states in prose, for responses without a `\boxed{}` (evaluation only):
 * what follows the last "answer is" / "answer:" (its math if it is in `$…$`, `\(…\)`, `\[…\]`),
 * else the last displayed or inline math, else the last number. Reads only the response's tail.
 */

const TAIL = 2000;
/** Math spans: `$$…$$`, `$…$`, `\(…\)`, `\[…\]`. A source, not a shared /g regex (its lastIndex would leak between calls). */
const MATH = String.raw`\$\$([^$]+)\$\$|\$([^$]+)\$|\\\(([\s\S]+?)\\\)|\\\[([\s\S]+?)\\\]`;
const ANNOUNCED = /\banswer\s*(?:is|:|=|would be|will be)\s*:?\s*/gi;

function mathAtStart(s: string): string | undefined {
  const m = new RegExp(`^(?:${MATH})`).exec(s);
  return m ? (m[1] ?? m[2] ?? m[3] ?? m[4]).trim() : undefined;
}

function lastMath(s: string): string | undefined {
  let found: string | undefined;
  for (const m of s.matchAll(new RegExp(MATH, 'g'))) found = (m[1] ?? m[2] ?? m[3] ?? m[4]).trim();
  return found || undefined;
}

export function finalAnswerFromProse(response: string): string | undefined {
  const text = response.slice(-TAIL);
  let at = -1;
  for (const m of text.matchAll(ANNOUNCED)) at = m.index + m[0].length;
  if (at >= 0) {
    const rest = text.slice(at).replace(/^\*+\s*/, '');
    const math = mathAtStart(rest);
    if (math) return math;
    // Plain text up to the end of the sentence: "The answer is 42." / "answer: x = 3".
    const plain = /^([^\n]*?)(?:\.\s|\.$|\n|$)/.exec(rest)?.[1].replace(/\*+$/, '').trim();
    if (plain) return plain;
  }
  const math = lastMath(text);
  if (math) return math;
  const numbers = text.match(/-?\d+(?:[.,]\d+)*(?:\/\d+)?/g);
  return numbers ? numbers[numbers.length - 1] : undefined;
}
