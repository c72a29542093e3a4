/**
 * GEM's QA scoring: exact match after SQuAD-style normalisation against any of the gold answers.
 * Normalisation, in GEM's order: lower case; drop ASCII punctuation; replace the articles a/an/the
 * (whole words, by Unicode word boundaries as Python's `re` draws them) with a space; split on
 * Python's whitespace and join with single spaces. Two additions, both written down in
 * docs/code-qa-graders.md: both sides are put in Unicode NFC first and U+FEFF (a byte-order mark,
 * invisible) is dropped, and a combining mark counts as part of its word, so a decomposed "á" is one
 * letter, not an article "a" followed by an accent.
 */
import { pySplit } from './pythonText.ts';

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** An article with no word character (letter, number, mark or underscore) on either side. */
const ARTICLES = /(?<![\p{L}\p{N}\p{M}_])(?:a|an|the)(?![\p{L}\p{N}\p{M}_])/gu;
const BOM = /\uFEFF/g;

export function normaliseAnswer(text: string): string {
  const lowered = text.normalize('NFC').replace(BOM, '').toLowerCase();
  return pySplit(lowered.replace(PUNCTUATION, '').replace(ARTICLES, ' ')).join(' ');
}

export function exactMatch(prediction: string, golds: readonly string[]): boolean {
  const p = normaliseAnswer(prediction);
  return golds.some((g) => normaliseAnswer(g) === p);
}

/** The content of the last `<answer>…</answer>` pair, trimmed; undefined when there is none. */
export function lastAnswerTag(text: string): string | undefined {
  let found: string | undefined;
  for (const m of text.matchAll(/<answer>([\s\S]*?)<\/answer>/g)) found = m[1];
  return found?.trim();
}
