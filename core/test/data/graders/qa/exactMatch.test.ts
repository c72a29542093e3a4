import { describe, expect, it } from 'vitest';
import { exactMatch, lastAnswerTag, normaliseAnswer } from '../../../../src/data/graders/qa/exactMatch.ts';

describe('QA normalisation (GEM order: lower, punctuation, articles, whitespace)', () => {
  it('normalises case, ASCII punctuation, articles and spaces', () => {
    expect(normaliseAnswer('  The  Pacific-Ocean! ')).toBe('pacificocean');
    expect(normaliseAnswer('An apple a day')).toBe('apple day');
    expect(exactMatch('the Eiffel tower.', ['Eiffel Tower'])).toBe(true);
    expect(exactMatch('Eiffel', ['Eiffel Tower'])).toBe(false);
  });

  // Before, `\b` was ASCII-only: "aã" lost its "a" (an article before a non-ASCII letter) while
  // Python's re, which GEM uses, sees one word.
  it('removes articles only as whole words by Unicode word boundaries', () => {
    expect(normaliseAnswer('aã')).toBe('aã');
    expect(normaliseAnswer('Ana ánа the Ñandú')).toBe('ana ánа ñandú');
    expect(normaliseAnswer('a São Paulo')).toBe('são paulo');
    expect(normaliseAnswer('theß a1 an_ anΩ')).toBe('theß a1 anω');
    expect(exactMatch('aã', ['ã'])).toBe(false);
  });

  it('counts a combining mark as part of its word and compares in NFC', () => {
    expect(normaliseAnswer('a\u0301 b')).toBe('á b');
    expect(exactMatch('Jose\u0301', ['José'])).toBe(true);
  });

  // Before, JS's whitespace set was used: U+0085 and U+001C–U+001F stayed inside words.
  it("splits on Python's whitespace set, and drops U+FEFF", () => {
    expect(normaliseAnswer('New\u0085York')).toBe('new york');
    expect(normaliseAnswer('New\u001cYork\u001f')).toBe('new york');
    expect(normaliseAnswer('\uFEFFParis')).toBe('paris');
    expect(normaliseAnswer('Pa\uFEFFris')).toBe('paris');
    expect(exactMatch('New\u2028York', ['new york'])).toBe(true);
  });

  it('reads the last <answer> pair, across lines', () => {
    expect(lastAnswerTag('<answer>a</answer> then <answer>\n b \n</answer>')).toBe('b');
    expect(lastAnswerTag('<answer>unclosed')).toBeUndefined();
  });
});
