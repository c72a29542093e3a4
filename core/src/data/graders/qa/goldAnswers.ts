/**
 * Gold answers graded by what they mean, whatever the column's type (see docs/code-qa-graders.md):
 * - text: normalised exact match (exactMatch.ts), GEM's rule;
 * - a number (int or float: after loading, JS cannot tell 100 from 100.0, and neither should the
 *   grade): the answer must be a number of the same value, "100", "100.0", "1e2" and "1,000"-style
 *   grouping included. GEM compares `str(gold)` with the punctuation removed, so it fails "100" for a
 *   float gold 100.0 and passes "1000"; for an integer gold an answer that is not a plain number
 *   still gets GEM's text match ("$100"), for a fractional one it does not ("25" is not 2.5);
 * - a boolean: true matches "true" or "yes", false matches "false" or "no" (normalised). GEM compares
 *   `str(True)`, so it takes only "true";
 * - a list of any of these: any element counts. Nulls in a list are skipped.
 */
import { GemError } from '../../../core/errors.ts';
import type { DatasetRow } from '../../datasetRegistry.ts';
import { exactMatch, normaliseAnswer } from './exactMatch.ts';
import { pyStrip } from './pythonText.ts';

export type Gold = { kind: 'text'; text: string } | { kind: 'number'; value: number } | { kind: 'bool'; value: boolean };

function toGold(v: unknown): Gold[] {
  if (typeof v === 'string') return [{ kind: 'text', text: v }];
  if (typeof v === 'number') return Number.isFinite(v) ? [{ kind: 'number', value: v }] : [{ kind: 'text', text: String(v) }];
  if (typeof v === 'boolean') return [{ kind: 'bool', value: v }];
  if (Array.isArray(v)) return v.flatMap(toGold);
  return [];
}

/** The gold answers of a row's answer column; DATASET_INVALID when none is usable. */
export function readGolds(row: DatasetRow, key: string, index: number): Gold[] {
  const golds = toGold(row[key]);
  if (golds.length === 0) {
    const value = row[key];
    const got = value === undefined ? 'no such column' : value === null ? 'null' : Array.isArray(value) ? 'a list without usable answers' : typeof value;
    throw new GemError(
      'DATASET_INVALID',
      `Row ${index}: column '${key}' has no usable gold answer (${got}); answers are text, numbers, booleans or lists of them (columns: ${Object.keys(row).join(', ') || 'none'}).`,
      { index, key, columns: Object.keys(row) },
    );
  }
  return golds;
}

const NUMBER = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d*)?(?:e[+-]?\d+)?$/;
/** Punctuation that may wrap a number in a sentence, a currency or a percentage ("$100", "(42)", "7.", "8%"). */
const WRAPPING = /^[\s$€£(["'“]+|[\s)\]"'”.!?;:%]+$/gu;

/** The value of an answer that is a plain number, else undefined. */
export function numericValue(answer: string): number | undefined {
  const text = pyStrip(answer.normalize('NFC').replace(/\uFEFF/g, '')).toLowerCase().replace(WRAPPING, '');
  if (!/\d/.test(text) || !NUMBER.test(text)) return undefined;
  const value = Number(text.replace(/,/g, ''));
  return Number.isFinite(value) ? value : undefined;
}

const YES = new Set(['true', 'yes']);
const NO = new Set(['false', 'no']);

export function matchesGold(answer: string, gold: Gold): boolean {
  switch (gold.kind) {
    case 'text':
      return exactMatch(answer, [gold.text]);
    case 'bool':
      return (gold.value ? YES : NO).has(normaliseAnswer(answer));
    case 'number': {
      const value = numericValue(answer);
      if (value !== undefined) return value === gold.value;
      return Number.isInteger(gold.value) && exactMatch(answer, [String(gold.value)]);
    }
  }
}

export function matchesAnyGold(answer: string, golds: readonly Gold[]): boolean {
  return golds.some((g) => matchesGold(answer, g));
}
