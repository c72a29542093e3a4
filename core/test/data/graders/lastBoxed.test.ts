import { describe, expect, it } from 'vitest';
import { finalBoxedList, lastBoxed } from '../../../src/data/graders/lastBoxed.ts';

describe('lastBoxed', () => {
  it.each([
    ['\\boxed{5}', '5'],
    ['first \\boxed{1} then \\boxed{2}', '2'],
    ['\\boxed{\\frac{1}{2}}', '\\frac{1}{2}'],
    ['\\boxed{\\{1, 2\\}}', '\\{1, 2\\}'],
    ['\\fbox{7}', '7'],
    ['\\boxed {8}', '8'],
    ['so \\boxed 9.', '9.'],
    ['$\\boxed{x^{2}}$', 'x^{2}'],
  ])('%s → %s', (text, inner) => {
    expect(lastBoxed(text)).toBe(inner);
  });

  it.each(['no box here', '\\boxed{unclosed', '\\boxed', 'boxed{3}'])('%s → undefined', (text) => {
    expect(lastBoxed(text)).toBeUndefined();
  });
});

describe('finalBoxedList', () => {
  it.each([
    ['so \\boxed{1}, \\boxed{2}', ['1', '2']],
    ['So $x = \\boxed{1}$ or $x = \\boxed{2}$ or $\\boxed{3}$.', ['1', '2', '3']],
    ['\\boxed{1}\\text{ and }\\boxed{2}', ['1', '2']],
    ['\\(\\boxed{1}\\); \\(\\boxed{2}\\)', ['1', '2']],
    // prose between boxes: the earlier one was an intermediate result
    ['We get $\\boxed{5}$, so the answer is $\\boxed{5}$.', ['5']],
    ['first \\boxed{1} then \\boxed{2}', ['2']],
    // no separator, or a separator lost in a long gap, is not a list
    ['\\boxed{1} \\boxed{2}', ['2']],
    [`\\boxed{1},${' '.repeat(200)}\\boxed{2}`, ['2']],
    ['no box', []],
  ])('%s → %j', (text, boxes) => {
    expect(finalBoxedList(text)).toEqual(boxes);
  });

  it('reads at most 16 boxes of a list and stays linear in the response', () => {
    const many = Array.from({ length: 40 }, (_, i) => `\\boxed{${i}}`).join(', ');
    expect(finalBoxedList(many)).toEqual(Array.from({ length: 16 }, (_, i) => String(24 + i)));
  });
});
