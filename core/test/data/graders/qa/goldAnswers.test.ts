import { describe, expect, it } from 'vitest';
import { matchesAnyGold, matchesGold, numericValue, readGolds, type Gold } from '../../../../src/data/graders/qa/goldAnswers.ts';

const num = (value: number): Gold => ({ kind: 'number', value });
const bool = (value: boolean): Gold => ({ kind: 'bool', value });

describe('typed gold answers', () => {
  it('reads text, numbers, booleans and lists of them; nulls in a list are skipped', () => {
    expect(readGolds({ a: 'Paris' }, 'a', 0)).toEqual([{ kind: 'text', text: 'Paris' }]);
    expect(readGolds({ a: 100 }, 'a', 0)).toEqual([num(100)]);
    expect(readGolds({ a: true }, 'a', 0)).toEqual([bool(true)]);
    expect(readGolds({ a: [1.5, 'x', null, false, [2]] }, 'a', 0)).toEqual([num(1.5), { kind: 'text', text: 'x' }, bool(false), num(2)]);
  });

  it('rejects a row without a usable gold with DATASET_INVALID naming the column', () => {
    for (const row of [{}, { a: null }, { a: [] }, { a: [null] }, { a: { x: 1 } }]) {
      expect(() => readGolds(row, 'a', 3)).toThrow(expect.objectContaining({ code: 'DATASET_INVALID', message: expect.stringMatching(/Row 3: column 'a'/) }));
    }
  });

  // Before, a float gold 100.0 became the text "100": right for "100", wrong for "100.0", and GEM
  // (str(100.0) = "100.0", punctuation removed = "1000") fails "100" and passes "1000".
  it('grades a number gold by value: an integral float matches the integer answer', () => {
    for (const yes of ['100', '100.0', '+100', '1e2', '100.', '$100', '(100)', ' 100 ']) expect(matchesGold(yes, num(100)), yes).toBe(true);
    for (const no of ['1000', '10', '100.5', 'one hundred', '']) expect(matchesGold(no, num(100)), no).toBe(false);
    expect(matchesGold('1,000', num(1000))).toBe(true);
    expect(matchesGold('2.5', num(2.5))).toBe(true);
    expect(matchesGold('25', num(2.5))).toBe(false);
    expect(matchesGold('-0.75', num(-0.75))).toBe(true);
  });

  it('keeps GEM\'s text match for an integer gold when the answer is not a plain number', () => {
    expect(matchesGold('8%', num(8))).toBe(true);
    expect(matchesGold('8 legs', num(8))).toBe(false);
  });

  it('parses plain numbers only', () => {
    expect(numericValue('1,234.5')).toBe(1234.5);
    expect(numericValue('.5')).toBe(0.5);
    for (const bad of ['e5', '1,23', '1.2.3', 'x1', '', '.', '--1']) expect(numericValue(bad), bad).toBeUndefined();
  });

  // Before, a boolean gold column was rejected at reset with DATASET_INVALID; GEM grades it as "True".
  it('grades a boolean gold: true is "true" or "yes", false is "false" or "no"', () => {
    for (const yes of ['True', 'true', 'yes', 'Yes.', ' TRUE ']) expect(matchesGold(yes, bool(true)), yes).toBe(true);
    for (const no of ['False', 'no', '1', 'correct', 'true false']) expect(matchesGold(no, bool(true)), no).toBe(false);
    expect(matchesGold('No', bool(false))).toBe(true);
    expect(matchesGold('yes', bool(false))).toBe(false);
  });

  it('counts any gold of a list', () => {
    expect(matchesAnyGold('4', [num(2), num(4)])).toBe(true);
    expect(matchesAnyGold('four', [num(4), { kind: 'text', text: 'four' }])).toBe(true);
    expect(matchesAnyGold('5', [num(2), num(4)])).toBe(false);
  });
});
