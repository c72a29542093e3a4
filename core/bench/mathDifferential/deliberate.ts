/**
 * Where gem-ts deliberately grades differently from math-verify on the differential corpus, each
 * with its mathematical reason (docs/math-grader.md lists the same). A disagreement that matches
 * no entry here is a defect: the benchmark reports it and the fixture test fails on it.
 */
export interface DeliberateDifference {
  kind: string;
  /** Matches the case's variant name. */
  variant: RegExp;
  /** gem-ts's verdict (math-verify's is the opposite). */
  ours: boolean;
  why: string;
}

export const DELIBERATE_DIFFERENCES: readonly DeliberateDifference[] = [
  {
    kind: 'thousands',
    variant: /^spacing /,
    ours: true,
    why: 'digit groups of three separated by a space or a LaTeX space (`1 000`, `1\\,000`, `1\\ 000`, `1\\;000`, `1~000`) are the SI thousands separator; math-verify multiplies the groups (1·000 = 0), which no answer means. GEM accepts the plain space too.',
  },
  {
    kind: 'inequality',
    variant: /^reversed$/,
    ours: true,
    why: '`b \\ge x \\ge a` states the same two bounds as `a \\le x \\le b`; math-verify compares the two relations of a chain in written order, so the reversed chain fails. GEM rejects it too.',
  },
  {
    kind: 'euler',
    variant: /^mathrm e$/,
    ours: true,
    why: '`\\mathrm{e}` is Euler\'s number set upright (ISO 80000-2); math-verify reads it as a free symbol e. GEM agrees with gem-ts.',
  },
  {
    kind: 'matrix',
    variant: /^double-escaped$/,
    ours: true,
    why: 'a matrix whose LaTeX was escaped twice (`\\\\begin{pmatrix} 1 & 2 \\\\\\\\ 3 & 4 \\\\end{pmatrix}`) is the same matrix; math-verify reads `\\\\frac` escaped twice but not a doubly escaped environment. GEM agrees with gem-ts on one-row matrices.',
  },
  {
    kind: 'interval',
    variant: /^double-escaped$/,
    ours: true,
    why: '`\\\\left[a, b\\\\right)` escaped twice is still the interval [a, b); math-verify reads a doubly escaped `\\\\left(` but not `\\\\left[`. GEM agrees with gem-ts.',
  },
  {
    kind: 'interval',
    variant: /^inequality chain$/,
    ours: true,
    why: 'an inequality chain answer (`-6 \\le x < 2`) states the interval gold ([-6, 2)) it describes; math-verify accepts this only in the other direction unless allow_set_relation_comp=True. GEM rejects it too.',
  },
  {
    kind: 'text',
    variant: /^capitalised$/,
    ours: true,
    why: 'a word answer is the same word capitalised (`\\text{Infinite}` for `\\text{infinite}`); math-verify matches most words case-insensitively but not those its parser turns into other objects. GEM agrees with gem-ts.',
  },
  {
    kind: 'percent',
    variant: /^decimal percent$/,
    ours: true,
    why: '`82.0\\%` is the whole percentage 82%, which math-verify itself matches to a gold 82; written with a zero decimal it compares 0.82 to 82 instead. GEM agrees with gem-ts.',
  },
  {
    kind: 'scientific',
    variant: /./,
    ours: true,
    why: 'a mantissa times a power of ten is exact (1.1 × 10^8 = 110000000); math-verify evaluates 1.1 as a binary float and the product misses the integer by a rounding error.',
  },
  ...['fraction', 'surd', 'pi'].map((kind) => ({
    kind,
    variant: /^four-place decimal$/,
    ours: true,
    why: 'a decimal of 4 or more places is the exact value correctly rounded to its own places (0.6667 for 2/3, 1.4142 for √2); math-verify and GEM compare it at 6 places only, where a rounded answer never matches. A truncation (0.6666) is still wrong.',
  })),
  {
    kind: 'approximation',
    variant: /^seven places$/,
    ours: true,
    why: 'a decimal that is the exact value correctly rounded to its own 7 places (0.5454545 for 6/11) is right; math-verify and GEM round it again to 6 places (0.545454, a tie to even) and miss 0.545455.',
  },
];

export function deliberateDifference(c: { kind: string; variant: string }, ours: boolean): DeliberateDifference | undefined {
  return DELIBERATE_DIFFERENCES.find((d) => d.kind === c.kind && d.variant.test(c.variant) && d.ours === ours);
}
