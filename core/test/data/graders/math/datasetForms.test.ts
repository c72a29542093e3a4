/**
 * Golds and answers as real datasets write them (issue 30): each kind both ways — the form in the gold
 * against a plain answer, and the plain gold against the form in the response — plus a wrong answer
 * of the same form, so no rule can pass by accepting everything.
 */
import { describe, expect, it } from 'vitest';
import { goldAnswer, gradeMathResponse } from '../../../../src/data/graders/math/mathGrader.ts';

const boxed = (a: string) => `Working through it, the answer is $\\boxed{${a}}$.`;
const grade = (response: string, gold: string, options = {}) => gradeMathResponse(response, [gold], options).correct;

describe('golds and answers as datasets write them', () => {
  it.each([
    // LaTeX-delimited golds
    ['$\\frac{1}{2}$', '\\frac12', true], ['$$3$$', '3', true], ['\\(x+1\\)', 'x+1', true], ['$\\frac{1}{2}$', '\\frac13', false],
    // named golds: the answer is what they name
    ['$(a,b)=(5,1)$', '(5,1)', true], ['$S_{\\triangle ABD}:S=3:8$', '3:8', true], ['$\\frac{AM}{MC}=\\frac{2}{\\sqrt{3}}$', '\\frac{2}{\\sqrt3}', true],
    ['$|PQ|=4$', '4', true], ['$|PQ|=4$', '5', false], ['$(a,b)=(5,1)$', '(1,5)', false], ['$x + 2y = 3$', '3', false],
    // decimal commas where no thousands reading fits
    ['2500.75', '2500,75', true], ['3.14', '3,14', true], ['2500,75', '2500.75', true], ['2500', '2,500', true], ['3.14', '3,15', false],
    // inequality chains and intervals / unions, both ways, also escaped twice
    ['x \\in [-1,4]', '-1 \\le x \\le 4', true], ['-1 \\le x \\le 4', 'x \\in [-1,4]', true], ['[-1,4]', '-1 < x \\le 4', false],
    ['2\\le|w|\\le 3', '[-3,-2]\\cup[2,3]', true], ['[-3,-2]\\cup[2,3]', '2\\le|w|\\le 3', true], ['2\\le|w|\\le 3', '[-3,-2]\\cup[2,4]', false],
    ['[-3,-2]\\cup[2,3]', '2\\\\le|w|\\\\le 3', true], ['|x| < 2', '(-2, 2)', true], ['|x| > 1', '(-\\infty,-1)\\cup(1,\\infty)', true],
    ['1\\leq|z|\\leq \\frac{3}{2}', 'z \\in [-\\frac{3}{2}, -1] \\cup [1, \\frac{3}{2}]', true],
    // commuted sums and products, also under a symbolic \sum
    ['F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}', 'F_n = \\sum_{k=0}^{n-1} F_{n-k-1} F_k', true],
    ['F_n = \\sum_{k=0}^{n-1} F_k F_{n-k-1}', 'F_n = \\sum_{k=0}^{n-2} F_k F_{n-k-2}', false],
    // a decimal's written places do not change the number (0.5 and 0.50) under a symbolic \sum
    ['\\sum_{k=0}^{n} 0.5 k F_k', '\\sum_{k=0}^{n} F_k 0.50 k', true], ['\\sum_{k=0}^{n} 0.5 k F_k', '\\sum_{k=0}^{n} F_k 0.6 k', false],
    // `or`-joined solutions, with or without spaces
    ['(3,5)or(5,3)', '(5,3),(3,5)', true], ['(5,3),(3,5)', '(3,5)or(5,3)', true], ['P(x)=0 \\text{ or } P(x)=2', 'P(x)=2, P(x)=0', true], ['(3,5)or(5,3)', '(5,3),(3,6)', false],
  ])('gold %s, answer %s → %s', (gold, answer, expected) => {
    expect(grade(boxed(answer), gold)).toBe(expected);
  });

  it('renamed functions and variables match with strict off, not with strict on', () => {
    expect(grade(boxed('g(t) = t^2 + 1'), 'g(s) = s^2 + 1', { strict: false })).toBe(true);
    expect(grade(boxed('g(t) = t^2 + 1'), 'g(s) = s^2 + 1')).toBe(false);
    expect(grade(boxed('g(t) = t^2 + 2'), 'g(s) = s^2 + 1', { strict: false })).toBe(false);
  });

  it('a vector of rounded decimals matches a vector of fractions at the precision asked for', () => {
    const gold = '\\begin{pmatrix}\\frac{1}{3}\\\\ \\frac{1}{5} \\end{pmatrix}';
    expect(grade(boxed('\\begin{pmatrix}0.33\\\\0.2 \\end{pmatrix}'), gold, { precision: 2 })).toBe(true);
    expect(grade(boxed('\\begin{pmatrix}0.33\\\\0.2 \\end{pmatrix}'), gold)).toBe(false);
    expect(grade(boxed('0.6667'), '\\frac{2}{3}', { precision: 4 })).toBe(true);
    expect(grade(boxed('(0.25,1.3333]'), '(\\frac14,\\frac43]', { precision: 4 })).toBe(true);
    expect(grade(boxed('(0.25,1.3334]'), '(\\frac14,\\frac43]', { precision: 4 })).toBe(false);
  });

  describe('a decimal of at least 4 places is compared at its own places (default precision)', () => {
    it.each([
      // answers: the exact gold rounded to the answer's places
      ['\\frac{2}{3}', '0.6667', true], ['-\\frac{2}{3}', '-0.6667', true], ['\\frac{6}{11}', '0.5454545', true], ['\\frac{6}{11}', '0.5454565', false], ['(\\frac14,\\frac43]', '(0.25,1.3333]', true],
      ['\\begin{pmatrix}\\frac23\\\\\\frac17\\end{pmatrix}', '\\begin{pmatrix}0.6667\\\\0.1429\\end{pmatrix}', true],
      ['(\\frac{2}{3}, \\frac{5}{7})', '(0.6667, 0.7143)', true], ['\\sqrt{2}', '1.4142', true], ['\\pi', '3.1416', true], ['\\frac{2}{3}', '66.67\\%', true],
      // golds: a rounded decimal gold against the exact answer
      ['0.6667', '\\frac{2}{3}', true], ['(0.25,1.3333]', '(\\frac14,\\frac43]', true], ['1.4142', '\\sqrt{2}', true],
      // a tie: either rounding (half-up, half-even) counts, nothing further
      ['\\frac{2469}{20000}', '0.1234', true], ['\\frac{2469}{20000}', '0.1235', true], ['\\frac{2469}{20000}', '0.1236', false],
      // not a rounding: truncated, one unit off, too few places, a wrong component, an integer gold
      ['\\frac{2}{3}', '0.6666', false], ['-\\frac{2}{3}', '-0.6666', false], ['\\frac{2}{3}', '0.6668', false], ['0.6667', '\\frac{3}{5}', false],
      ['\\frac{2}{3}', '0.667', false], ['\\frac{1}{3}', '0.33', false], ['(\\frac14,\\frac43]', '(0.25,1.3334]', false],
      ['\\begin{pmatrix}\\frac23\\\\\\frac17\\end{pmatrix}', '\\begin{pmatrix}0.6667\\\\0.1428\\end{pmatrix}', false], ['2', '1.9999', false],
      // two decimals keep comparing at `precision` (a rounded gold is not the exact value)
      ['0.6667', '0.66667', false], ['0.66667', '0.6667', false],
    ])('gold %s, answer %s → %s', (gold, answer, expected) => {
      expect(grade(boxed(answer), gold)).toBe(expected);
    });

    it('`precision` still rules when it is coarser than the decimal', () => {
      expect(grade(boxed('0.6666'), '\\frac{2}{3}', { precision: 3 })).toBe(true);
      expect(grade(boxed('0.6667'), '\\frac{2}{3}', { precision: 4 })).toBe(true);
    });
  });

  it('a gold of several boxes in a short text is one list, against one box or several', () => {
    expect(goldAnswer('\\boxed{3} apples and \\boxed{5} pears')).toBe('3, 5');
    expect(grade(boxed('3, 5'), '\\boxed{3} apples and \\boxed{5} pears')).toBe(true);
    expect(grade(boxed('2, -3'), '\\(\\boxed{2}\\) and \\(\\boxed{-3}\\)')).toBe(true);
    expect(grade(boxed('2'), '\\(\\boxed{2}\\) and \\(\\boxed{-3}\\)')).toBe(false);
    // boxes that prose separates are not joined
    expect(grade(boxed('1, 2'), '\\boxed{1} no no no no no \\boxed{2}')).toBe(false);
  });

  it('several boxes in a response, joined by "and", \\quad or "for part (a)", against a gold list', () => {
    expect(grade('$$\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}$$', '(2, 2), (6, 2)')).toBe(true);
    expect(grade('$$\\boxed{(3, 3)} \\text{ for part (a) and } \\boxed{(1, 1)}$$', '(3, 3), (1, 1)')).toBe(true);
    expect(grade('\\[ \\boxed{-2} \\quad \\text{and} \\quad \\boxed{1}. \\]', '1, -2')).toBe(true);
    expect(grade('$$\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 3)}$$', '(2, 2), (6, 2)')).toBe(false);
    expect(grade('we get \\boxed{7} cases, so the answer is \\boxed{5}', '7, 5')).toBe(false);
  });

  it('a worked solution as the gold: its last box, or without a box the final answer it states', () => {
    const solution = 'We factor $(n - 1)(n + 2) = 0,$ so the solutions are $n = \\boxed{1,-2}.$';
    expect(grade(boxed('-2, 1'), solution)).toBe(true);
    expect(grade(boxed('1'), solution)).toBe(false);
    const unboxed = 'The loss is $100 - 72 = 28$ dollars out of $100$, so in percent the final answer is $28 \\%$. I hope it is correct.';
    expect(grade(boxed('28\\%'), unboxed)).toBe(true);
    expect(grade(boxed('72\\%'), unboxed)).toBe(false);
  });

  it('an unclosed box in a gold runs to its end; \\quad glued to a name is a space', () => {
    expect(grade(boxed('4'), '\\boxed{x = 4')).toBe(true);
    expect(grade(boxed('10, 20'), '$x_{1}=10,\\quadx_{2}=20$')).toBe(true);
  });
});
