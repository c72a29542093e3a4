/**
 * The differential corpus: generated gold answers of every common kind, and for each gold the
 * answers models write for it — equivalent reformattings (the spellings models produce) and wrong
 * answers made by small perturbations — wrapped in a short response that boxes them. A pure function
 * of the seed, so a run can be reproduced and a subset checked in with its peer verdicts.
 *
 * `intended` is what the generator meant (equivalent or not); the verdicts that count are the
 * peers' (math-verify, GEM), computed by ./peer.py.
 */
import { Rng } from '../../src/core/rng.ts';
import { gradeMathResponse, type MultiBoxRule } from '../../src/data/graders/math/mathGrader.ts';

export interface DifferentialCase {
  id: number;
  kind: string;
  variant: string;
  gold: string;
  response: string;
  intended: boolean;
}

interface Form {
  variant: string;
  /** The content of the box; `response` overrides the whole response (several boxes). */
  answer?: string;
  response?: string;
  intended: boolean;
}

interface GoldCase {
  gold: string;
  forms: Form[];
}

type KindGenerator = (r: Rng) => GoldCase;

const ok = (variant: string, answer: string): Form => ({ variant, answer, intended: true });
const bad = (variant: string, answer: string): Form => ({ variant, answer, intended: false });

function pick<T>(r: Rng, xs: readonly T[]): T {
  return xs[r.int(0, xs.length - 1)];
}

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

function shuffled<T>(r: Rng, xs: readonly T[]): T[] {
  return r.shuffle([...xs]);
}

/** `12345678` with a separator every three digits. */
function grouped(n: number, sep: string): string {
  const s = String(Math.abs(n));
  const parts: string[] = [];
  for (let i = s.length; i > 0; i -= 3) parts.unshift(s.slice(Math.max(0, i - 3), i));
  return (n < 0 ? '-' : '') + parts.join(sep);
}

/** The thousands separators of LaTeX answers that math-verify reads as such. */
const THOUSANDS_SEPARATORS = [',', '{,}', ',\\!', ',\\! ', '\\!,\\!'];
/** Spacing between digit groups (SI style), which math-verify reads as a product. */
const THOUSANDS_SPACES = ['\\,', '\\ ', '\\;', '~', ' '];
const UNITS = ['\\text{ cm}', '\\text{ meters}', '\\text{ dollars}', '\\mbox{ units}', ' \\text{cm}^2', '\\ \\text{km}', '\\text{ apples}', ' \\text{ students}'];
const FRACS = ['\\frac', '\\dfrac', '\\tfrac'];

function fracOf(r: Rng, p: number, q: number): string {
  const f = pick(r, FRACS);
  return p < 0 ? `-${f}{${-p}}{${q}}` : `${f}{${p}}{${q}}`;
}

function decimalOf(p: number, q: number): string | undefined {
  let d = q;
  while (d % 2 === 0) d /= 2;
  while (d % 5 === 0) d /= 5;
  if (d !== 1) return undefined;
  return String(p / q);
}

/**
 * A non-terminating value written to 4 places: rounded (right, at the decimal's own precision) and, where
 * that differs, truncated (wrong: not a rounding).
 */
function fourPlaces(x: number): Form[] {
  const rounded = x.toFixed(4);
  const truncated = (Math.trunc(x * 1e4) / 1e4).toFixed(4);
  return [ok('four-place decimal', rounded), ...(truncated !== rounded ? [bad('truncated to four places', truncated)] : [])];
}

/* ------------------------------------------------------------------ the kinds */

const integer: KindGenerator = (r) => {
  const n = r.bool(0.5) ? r.int(2, 999) : r.int(1000, 9_999_999);
  const forms: Form[] = [ok('plain', String(n)), ok('dollar-sign', `\\$${n}`), ok('x-prefix', `x = ${n}`), ok('text-wrapped', `\\text{${n}}`)];
  forms.push(ok('unit', `${n}${pick(r, UNITS)}`), ok('trailing-zero decimal', `${n}.0`), ok('degree', `${n}^\\circ`));
  forms.push(bad('off by one', String(n + 1)), bad('off by minus one', String(n - 1)), bad('times ten', String(n * 10)), bad('negated', String(-n)));
  return { gold: String(n), forms };
};

const thousands: KindGenerator = (r) => {
  const n = r.int(1000, 99_999_999);
  const cents = r.bool(0.3) ? `.${String(r.int(1, 99)).padStart(2, '0')}` : '';
  const gold = r.bool(0.8) ? `${n}${cents}` : `${grouped(n, pick(r, THOUSANDS_SEPARATORS))}${cents}`;
  const forms: Form[] = [ok('plain', `${n}${cents}`)];
  for (const sep of THOUSANDS_SEPARATORS) forms.push(ok(`separator ${sep}`, `${grouped(n, sep)}${cents}`));
  // SI-style spacing is rarer in model answers than commas: one spelling per gold.
  const space = pick(r, THOUSANDS_SPACES);
  forms.push(ok(`spacing ${JSON.stringify(space)}`, `${grouped(n, space)}${cents}`));
  forms.push(ok('dollar and separator', `\\$${grouped(n, ',')}${cents}`));
  forms.push(bad('wrong group', `${grouped(n + 1000, pick(r, THOUSANDS_SEPARATORS))}${cents}`));
  forms.push(bad('wrong group, spacing', `${grouped(n + 1000, pick(r, THOUSANDS_SPACES))}${cents}`));
  forms.push(bad('dropped group', grouped(Math.floor(n / 1000), pick(r, THOUSANDS_SEPARATORS))));
  forms.push(bad('list-looking', `${Math.floor(n / 1000)}, ${String(n % 1000).padStart(3, '0')}`));
  return { gold, forms };
};

const fraction: KindGenerator = (r) => {
  let p = r.int(1, 40);
  let q = r.int(2, 41);
  const g = gcd(p, q);
  [p, q] = [p / g, q / g];
  if (q === 1) q = p + 1;
  if (r.bool(0.25)) p = -p;
  const gold = p < 0 ? `-\\frac{${-p}}{${q}}` : `\\frac{${p}}{${q}}`;
  const forms: Form[] = [
    ok('frac', fracOf(r, p, q)),
    ok('slash', `${p}/${q}`),
    ok('left-right', `\\left(${fracOf(r, p, q)}\\right)`),
    ok('unreduced', fracOf(r, 2 * p, 2 * q)),
    ok('x-prefix', `x=${fracOf(r, p, q)}`),
    ok('approx chain', `${fracOf(r, p, q)} \\approx ${(p / q).toFixed(2)}`),
    ok('double-escaped', `\\\\frac{${p}}{${q}}`),
  ];
  if (p < 0) forms.push(ok('minus inside', `\\frac{${p}}{${q}}`));
  const dec = decimalOf(p, q);
  if (dec) forms.push(ok('decimal', dec));
  else {
    forms.push(ok('long decimal', (p / q).toFixed(8)), bad('two-place decimal', (p / q).toFixed(2)));
    forms.push(...fourPlaces(p / q));
  }
  forms.push(bad('inverted', fracOf(r, q, p)), bad('denominator + 1', fracOf(r, p, q + 1)), bad('numerator + 1', fracOf(r, p + 1, q)), bad('negated', fracOf(r, -p, q)));
  return { gold, forms };
};

const decimal: KindGenerator = (r) => {
  const whole = r.int(0, 99);
  const frac = String(r.int(1, 99)).padStart(2, '0').replace(/0$/, '5');
  const gold = `${whole}.${frac}`;
  const value = Number(gold);
  const forms: Form[] = [
    ok('plain', gold),
    ok('trailing zero', `${gold}0`),
    ok('unit', `${gold}${pick(r, UNITS)}`),
    ok('x-prefix', `x \\approx ${gold}`),
    ok('dollar', `\\$${gold}`),
  ];
  if (whole >= 1) forms.push(ok('as fraction', `\\frac{${Math.round(value * 100)}}{100}`));
  if (whole === 0) forms.push(ok('no leading zero', `.${frac}`), ok('decimal comma', `0,${frac}`));
  forms.push(bad('rounded', value.toFixed(1)), bad('shifted', (value * 10).toFixed(1)), bad('last digit', (value + 0.01).toFixed(2)), bad('negated', `-${gold}`));
  return { gold, forms };
};

const surd: KindGenerator = (r) => {
  const a = r.int(2, 9);
  const b = pick(r, [2, 3, 5, 6, 7, 10, 11]);
  const gold = `${a}\\sqrt{${b}}`;
  const forms: Form[] = [
    ok('plain', gold),
    ...(b < 10 ? [ok('no braces', `${a}\\sqrt ${b}`)] : []),
    ok('as one root', `\\sqrt{${a * a * b}}`),
    ok('cdot', `${a} \\cdot \\sqrt{${b}}`),
    ok('times', `${a}\\times\\sqrt{${b}}`),
    ok('commuted', `\\sqrt{${b}} \\cdot ${a}`),
    ok('power', `${a} \\cdot ${b}^{1/2}`),
    ok('long decimal', (a * Math.sqrt(b)).toFixed(9)),
    ok('approx chain', `${gold} \\approx ${(a * Math.sqrt(b)).toFixed(2)}`),
    bad('coefficient + 1', `${a + 1}\\sqrt{${b}}`),
    bad('radicand', `${a}\\sqrt{${b + 1}}`),
    ...(a !== b ? [bad('swapped', `${b}\\sqrt{${a}}`)] : []),
    bad('short decimal', (a * Math.sqrt(b)).toFixed(2)),
    ...fourPlaces(a * Math.sqrt(b)),
  ];
  const c = r.int(2, 5);
  forms.push(ok('over a number', `\\frac{${a * c}\\sqrt{${b}}}{${c}}`));
  return { gold, forms };
};

const pi: KindGenerator = (r) => {
  let p = r.int(1, 11);
  let q = r.int(2, 12);
  const g = gcd(p, q);
  [p, q] = [p / g, q / g];
  if (q === 1) [q, p] = [2, p * 2 + 1];
  const gold = `\\frac{${p === 1 ? '' : p}\\pi}{${q}}`;
  const forms: Form[] = [
    ok('plain', gold),
    ok('coefficient first', `${fracOf(r, p, q)}\\pi`),
    ok('slash', `${p === 1 ? '' : p}\\pi/${q}`),
    ok('pi over', `\\frac{\\pi ${p === 1 ? '' : `\\cdot ${p}`}}{${q}}`),
    ok('unicode', `${p === 1 ? '' : p}π/${q}`),
    ok('long decimal', ((p * Math.PI) / q).toFixed(9)),
    bad('inverted', `\\frac{${q}\\pi}{${p}}`),
    bad('no pi', fracOf(r, p, q)),
    bad('two pi', `\\frac{${2 * p}\\pi}{${q + 1}}`),
    bad('short decimal', ((p * Math.PI) / q).toFixed(2)),
    ...fourPlaces((p * Math.PI) / q),
  ];
  return { gold, forms };
};

const percent: KindGenerator = (r) => {
  const n = r.int(1, 99);
  const gold = r.bool() ? `${n}\\%` : String(n);
  const forms: Form[] = [
    ok('percent sign', `${n}\\%`),
    ok('bare', String(n)),
    ok('spaced', `${n} \\%`),
    ok('word', `${n}\\text{ percent}`),
    ok('decimal percent', `${n}.0\\%`),
    bad('plus one', `${n + 1}\\%`),
    bad('times ten', `${n * 10}\\%`),
  ];
  return { gold, forms };
};

const units: KindGenerator = (r) => {
  const n = r.int(1, 360);
  const gold = String(n);
  return {
    gold,
    forms: [
      ok('degree', `${n}^\\circ`),
      ok('degree braces', `${n}^{\\circ}`),
      ok('degree text', `${n}\\text{ degrees}`),
      ok('unit text', `${n}${pick(r, UNITS)}`),
      ok('dollar', `\\$ ${n}`),
      ok('unit power', `${n} \\text{ cm}^2`),
      ok('mbox', `${n}\\mbox{ cm}`),
      bad('other number', `${n + 2}^\\circ`),
      bad('other number, unit', `${n * 2}${pick(r, UNITS)}`),
    ],
  };
};

const scientific: KindGenerator = (r) => {
  const m = r.int(11, 99) / 10;
  const e = r.int(3, 8);
  const value = Math.round(m * 10 ** e);
  const gold = r.bool() ? `${m} \\times 10^{${e}}` : String(value);
  return {
    gold,
    forms: [
      ok('times', `${m} \\times 10^{${e}}`),
      ok('cdot', `${m}\\cdot 10^${e}`),
      ok('full', String(value)),
      ok('thousands', grouped(value, pick(r, THOUSANDS_SEPARATORS))),
      ok('shifted mantissa', `${Math.round(m * 10)} \\times 10^{${e - 1}}`),
      bad('exponent', `${m} \\times 10^{${e + 1}}`),
      bad('mantissa', `${(m + 0.1).toFixed(1)} \\times 10^{${e}}`),
    ],
  };
};

const interval: KindGenerator = (r) => {
  const a = r.int(-9, 5);
  const b = a + r.int(1, 9);
  const lo = pick(r, ['(', '[']);
  const hi = pick(r, [')', ']']);
  const gold = `${lo}${a}, ${b}${hi}`;
  const lop = lo === '(' ? '<' : '\\le';
  const hip = hi === ')' ? '<' : '\\le';
  const flip = (s: string) => (s === '(' ? '[' : s === '[' ? '(' : s === ')' ? ']' : ')');
  const forms: Form[] = [
    ok('plain', gold),
    ok('left-right', `\\left${lo} ${a},${b} \\right${hi}`),
    ok('x in', `x \\in ${lo}${a},${b}${hi}`),
    ok('inequality chain', `${a} ${lop} x ${hip} ${b}`),
    ok('double-escaped', `\\\\left${lo}${a}, ${b}\\\\right${hi}`),
    bad('other bracket', `${flip(lo)}${a}, ${b}${hi}`),
    bad('other end', `${lo}${a}, ${b + 1}${hi}`),
    bad('reversed chain', `${b} ${lop} x ${hip} ${a}`),
  ];
  if (r.bool(0.4)) {
    const c = b + r.int(1, 5);
    const gold2 = `(-\\infty, ${a}) \\cup (${c}, \\infty)`;
    return {
      gold: gold2,
      forms: [
        ok('plain', gold2),
        ok('unordered union', `(${c}, \\infty) \\cup (-\\infty, ${a})`),
        ok('left-right union', `\\left(-\\infty, ${a}\\right) \\cup \\left(${c}, +\\infty\\right)`),
        ok('inf word', `(-\\infty,${a})\\cup(${c},\\infty)`),
        bad('closed end', `(-\\infty, ${a}] \\cup (${c}, \\infty)`),
        bad('one part', `(-\\infty, ${a})`),
      ],
    };
  }
  return { gold, forms };
};

const inequality: KindGenerator = (r) => {
  const a = r.int(-9, 5);
  const b = a + r.int(1, 9);
  const gold = `${a} \\le x \\le ${b}`;
  return {
    gold,
    forms: [
      ok('plain', gold),
      ok('interval', `[${a}, ${b}]`),
      ok('x in', `x \\in [${a},${b}]`),
      ok('leq spelling', `${a} \\leq x \\leq ${b}`),
      ok('reversed', `${b} \\ge x \\ge ${a}`),
      // A fixed wrapper: a form with its own response draws nothing from the generator's stream.
      { variant: 'reversed, one strict', response: `So $\\boxed{${b} \\ge x > ${a}}$.`, intended: false },
      bad('open interval', `(${a}, ${b})`),
      bad('strict', `${a} < x < ${b}`),
      bad('other end', `[${a}, ${b + 1}]`),
    ],
  };
};

const set: KindGenerator = (r) => {
  const size = r.int(2, 4);
  const items = new Set<number>();
  while (items.size < size) items.add(r.int(-12, 20));
  const xs = [...items];
  const braces = r.bool();
  const gold = braces ? `\\{${xs.join(', ')}\\}` : xs.join(', ');
  const perm = shuffled(r, xs);
  const forms: Form[] = [
    ok('plain', gold),
    ok('permuted', perm.join(', ')),
    ok('braces permuted', `\\{${perm.join(',')}\\}`),
    ok('left-right braces', `\\left\\{ ${perm.join(', ')} \\right\\}`),
    ok('x =', perm.map((x) => `x=${x}`).join(', ')),
    ok('repeated item', [...perm, perm[0]].join(', ')),
    ok('and', `${perm.slice(0, -1).join(', ')} \\text{ and } ${perm[perm.length - 1]}`),
    ok('or no spaces', `${perm.slice(0, -1).join(',')}\\text{or}${perm[perm.length - 1]}`),
    { variant: 'several boxes', response: `The solutions are ${perm.map((x) => `$\\boxed{${x}}$`).join(', ')}.`, intended: true },
    { variant: 'several boxes and', response: `So $x = \\boxed{${perm[0]}}$ or $x = \\boxed{${perm[1]}}$${perm.length > 2 ? ` or ${perm.slice(2).map((x) => `$\\boxed{${x}}$`).join(' or ')}` : ''}.`, intended: true },
    bad('missing item', perm.slice(1).join(', ')),
    bad('extra item', [...perm, 99].join(', ')),
    bad('one changed', [...perm.slice(1), perm[0] + 1].join(', ')),
    { variant: 'several boxes, one wrong', response: `The solutions are ${[...perm.slice(1), perm[0] + 1].map((x) => `$\\boxed{${x}}$`).join(', ')}.`, intended: false },
  ];
  return { gold, forms };
};

const tuple: KindGenerator = (r) => {
  const a = r.int(-9, 9);
  let b = r.int(-9, 9);
  if (b === a) b = a + 3;
  const [lo, hi] = a < b ? [a, b] : [b, a];
  // A pair whose first item is the larger, so it cannot be read as an interval.
  const [p, q] = [hi, lo];
  const gold = `(${p}, ${q})`;
  const c = r.int(1, 9);
  const forms: Form[] = [
    ok('plain', gold),
    ok('no space', `(${p},${q})`),
    ok('left-right', `\\left( ${p}, ${q} \\right)`),
    ok('named pair', `(x, y) = (${p}, ${q})`),
    ok('pq pair', `(p,q)=(${p},${q})`),
    ok('double-escaped', `\\\\left(${p}, ${q}\\\\right)`),
    bad('swapped', `(${q}, ${p})`),
    bad('one changed', `(${p}, ${q + 1})`),
  ];
  if (r.bool(0.5)) {
    const gold3 = `(${p}, ${q}, ${c})`;
    return {
      gold: gold3,
      forms: [ok('plain', gold3), ok('left-right', `\\left(${p},${q},${c}\\right)`), ok('named', `(a,b,c) = (${p}, ${q}, ${c})`), bad('rotated', `(${q}, ${c}, ${p})`), bad('one changed', `(${p}, ${q}, ${c + 1})`)],
    };
  }
  return { gold, forms };
};

const pairList: KindGenerator = (r) => {
  const pairs = [[r.int(6, 9), r.int(1, 5)], [r.int(10, 19), r.int(1, 5)]];
  const gold = pairs.map(([x, y]) => `(${x}, ${y})`).join(', ');
  return {
    gold,
    forms: [
      ok('plain', gold),
      ok('reordered', [...pairs].reverse().map(([x, y]) => `(${x},${y})`).join(', ')),
      ok('labelled', pairs.map(([x, y]) => `p=${x},q=${y}`).join(';')),
      ok('labelled spaced', pairs.map(([x, y]) => `p = ${x}, q = ${y}`).join('; ')),
      ok('set of pairs', `\\{${pairs.map(([x, y]) => `(${x}, ${y})`).join(', ')}\\}`),
      bad('one pair', `(${pairs[0][0]}, ${pairs[0][1]})`),
      bad('pair swapped', pairs.map(([x, y], i) => (i === 0 ? `(${y}, ${x})` : `(${x}, ${y})`)).join(', ')),
      bad('labelled wrong', pairs.map(([x, y], i) => `p=${x},q=${i === 0 ? y + 1 : y}`).join(';')),
    ],
  };
};

const matrix: KindGenerator = (r) => {
  const rows = r.int(1, 3);
  const cols = rows === 1 ? 2 : r.int(1, 3);
  const m = Array.from({ length: rows }, () => Array.from({ length: cols }, () => r.int(-9, 9)));
  const body = (sep = ' \\\\ ') => m.map((row) => row.join(' & ')).join(sep);
  const gold = `\\begin{pmatrix} ${body()} \\end{pmatrix}`;
  const changed = m.map((row, i) => row.map((x, j) => (i === 0 && j === 0 ? x + 1 : x)));
  return {
    gold,
    forms: [
      ok('plain', gold),
      ok('bmatrix', `\\begin{bmatrix}${body('\\\\')}\\end{bmatrix}`),
      ok('trailing row break', `\\begin{pmatrix} ${body()} \\\\ \\end{pmatrix}`),
      ok('double-escaped', `\\\\begin{pmatrix} ${m.map((row) => row.join(' & ')).join(' \\\\\\\\ ')} \\\\end{pmatrix}`),
      ok('fractions', `\\begin{pmatrix} ${m.map((row) => row.map((x) => `\\frac{${2 * x}}{2}`).join(' & ')).join(' \\\\ ')} \\end{pmatrix}`),
      bad('one entry', `\\begin{pmatrix} ${changed.map((row) => row.join(' & ')).join(' \\\\ ')} \\end{pmatrix}`),
      bad('negated', `\\begin{pmatrix} ${m.map((row) => row.map((x) => -x || 1).join(' & ')).join(' \\\\ ')} \\end{pmatrix}`),
    ],
  };
};

const equation: KindGenerator = (r) => {
  const a = r.int(1, 6) * (r.bool() ? 1 : -1);
  const b = r.int(1, 9) * (r.bool() ? 1 : -1);
  const c = r.int(2, 4);
  const sign = (n: number) => (n < 0 ? `- ${-n}` : `+ ${n}`);
  const gold = `y = ${a === 1 ? '' : a === -1 ? '-' : a}x ${sign(b)}`;
  // ax - y + b = 0, times c.
  const lin = (k: number) => `${k * a}x ${k > 0 ? '-' : '+'} ${Math.abs(k)}y ${sign(k * b)} = 0`;
  return {
    gold,
    forms: [
      ok('plain', gold),
      ok('commuted', `y = ${b} ${a < 0 ? '-' : '+'} ${Math.abs(a)}x`),
      ok('general form', lin(1)),
      ok('scaled general form', lin(c)),
      ok('negated general form', lin(-c)),
      ok('fraction slope', `y = \\frac{${2 * a}x}{2} ${sign(b)}`),
      bad('other intercept', `y = ${a}x ${sign(b + 1)}`),
      bad('other slope', `y = ${a + 1}x ${sign(b)}`),
      bad('general form, wrong', `${a}x - y ${sign(-b)} = 0`),
    ],
  };
};

const expression: KindGenerator = (r) => {
  const a = r.int(1, 6);
  const b = r.int(1, 6) * (r.bool() ? 1 : -1);
  const sign = (n: number) => (n < 0 ? `- ${-n}` : `+ ${n}`);
  // (x + a)(x + b) = x² + (a+b)x + ab
  const s = a + b;
  const p = a * b;
  const gold = `x^2 ${s === 0 ? '' : `${s < 0 ? '-' : '+'} ${Math.abs(s) === 1 ? '' : Math.abs(s)}x`} ${sign(p)}`;
  return {
    gold,
    forms: [
      ok('plain', gold),
      ok('factored', `(x ${sign(a)})(x ${sign(b)})`),
      ok('braced power', gold.replace('x^2', 'x^{2}')),
      ok('reordered', `${p} ${s === 0 ? '' : `${s < 0 ? '-' : '+'} ${Math.abs(s)}x`} + x^2`),
      ok('cdot', `(x ${sign(b)}) \\cdot (x ${sign(a)})`),
      bad('other constant', `x^2 ${s === 0 ? '' : `${s < 0 ? '-' : '+'} ${Math.abs(s)}x`} ${sign(p + 1)}`),
      bad('factor sign', `(x ${sign(-a)})(x ${sign(b)})`),
      bad('no square', `x ${sign(s)}`),
    ],
  };
};

const WORDS = ['yes', 'no', 'even', 'odd', 'north', 'Tuesday', 'blue', 'infinite', 'square', 'never'];
const text: KindGenerator = (r) => {
  if (r.bool()) {
    const letter = pick(r, ['A', 'B', 'C', 'D', 'E']);
    const other = letter === 'A' ? 'B' : 'A';
    const gold = r.bool() ? `\\text{(${letter})}` : letter;
    return {
      gold,
      forms: [ok('letter', letter), ok('parenthesised', `(${letter})`), ok('text', `\\text{${letter}}`), ok('textbf', `\\textbf{(${letter})}`), ok('text parenthesised', `\\text{(${letter})}`), bad('other letter', other), bad('other letter text', `\\text{(${other})}`)],
    };
  }
  const w = pick(r, WORDS);
  const other = pick(r, WORDS.filter((x) => x !== w));
  const gold = `\\text{${w}}`;
  return {
    gold,
    forms: [ok('text', gold), ok('textbf', `\\textbf{${w}}`), ok('mathrm', `\\mathrm{${w}}`), ok('capitalised', `\\text{${w[0].toUpperCase()}${w.slice(1)}}`), bad('other word', `\\text{${other}}`)],
  };
};

const ratio: KindGenerator = (r) => {
  let a = r.int(1, 30);
  let b = r.int(1, 30);
  const g = gcd(a, b);
  [a, b] = [a / g, b / g];
  if (a === b) b = a + 1;
  const gold = r.bool() ? `${a}:${b}` : `\\frac{${a}}{${b}}`;
  return {
    gold,
    forms: [
      ok('colon', `${a}:${b}`),
      ok('spaced colon', `${a} : ${b}`),
      ok('labelled', `V_1:V_2 = ${a}:${b}`),
      ok('fraction', `\\frac{${a}}{${b}}`),
      ok('scaled colon', `${2 * a}:${2 * b}`),
      bad('reversed', `${b}:${a}`),
      bad('other', `${a}:${b + 1}`),
    ],
  };
};

const assignment: KindGenerator = (r) => {
  const n = r.int(1, 50);
  const d = r.int(2, 9);
  const gold = r.bool() ? String(n) : `\\frac{${n}}{${d}}`;
  const v = gold.startsWith('\\frac') ? `\\frac{${n}}{${d}}` : String(n);
  return {
    gold,
    forms: [
      ok('x =', `x = ${v}`),
      ok('abs label', `|AB| = ${v}`),
      ok('fraction label', `\\frac{NO}{BO} = ${v}`),
      ok('chain', `k = ${v} = ${v}`),
      ok('subscript label', `a_{10} = ${v}`),
      ok('text label', `\\text{Area} = ${v}`),
      bad('x = other', `x = ${gold.startsWith('\\frac') ? `\\frac{${n + 1}}{${d}}` : n + 1}`),
      bad('label, other', `|AB| = ${gold.startsWith('\\frac') ? `\\frac{${n}}{${d + 1}}` : n + 2}`),
    ],
  };
};

const approximation: KindGenerator = (r) => {
  let p = r.int(1, 20);
  let q = pick(r, [3, 7, 9, 11, 13]);
  const g = gcd(p, q);
  [p, q] = [p / g, q / g];
  if (q === 1) q = 7;
  const gold = `\\frac{${p}}{${q}}`;
  const v = p / q;
  return {
    gold,
    forms: [
      ok('exact then approx', `\\frac{${p}}{${q}} \\approx ${v.toFixed(3)}`),
      ok('x = exact approx', `x = ${p}/${q} \\approx ${v.toFixed(2)}`),
      ok('six places', v.toFixed(6)),
      ok('seven places', v.toFixed(7)),
      ok('approx only, many places', `\\approx ${v.toFixed(8)}`),
      bad('two places', v.toFixed(2)),
      bad('approx only, two places', `\\approx ${v.toFixed(2)}`),
      bad('exact wrong then approx', `\\frac{${p + 1}}{${q}} \\approx ${((p + 1) / q).toFixed(3)}`),
    ],
  };
};

const bigOperator: KindGenerator = (r) => {
  if (r.bool()) {
    const n = r.int(3, 20);
    const gold = String((n * (n + 1)) / 2);
    return {
      gold,
      forms: [
        ok('sum', `\\sum_{k=1}^{${n}} k`),
        ok('sum with value', `\\sum_{i=1}^{${n}} i = ${gold}`),
        ok('value', gold),
        bad('sum, one short', `\\sum_{k=1}^{${n - 1}} k`),
        bad('value + 1', String(Number(gold) + 1)),
      ],
    };
  }
  const n = r.int(3, 7);
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  const gold = String(f);
  return {
    gold,
    forms: [ok('prod', `\\prod_{k=1}^{${n}} k`), ok('factorial', `${n}!`), ok('value', gold), bad('prod, one more', `\\prod_{k=1}^{${n + 1}} k`), bad('factorial, one less', `${n - 1}!`)],
  };
};

const euler: KindGenerator = (r) => {
  const k = r.int(2, 5);
  const gold = `e^{${k}}`;
  return {
    gold,
    forms: [
      ok('plain', gold),
      ok('mathrm e', `\\mathrm{e}^{${k}}`),
      ok('exp', `\\exp(${k})`),
      ok('no braces', `e^${k}`),
      ok('long decimal', Math.exp(k).toFixed(8)),
      bad('other power', `e^{${k + 1}}`),
      bad('mathrm, other power', `\\mathrm{e}^{${k - 1}}`),
    ],
  };
};

const lastBox: KindGenerator = (r) => {
  const n = r.int(2, 99);
  const m = n + r.int(1, 9);
  const gold = String(n);
  return {
    gold,
    forms: [
      { variant: 'intermediate box first', response: `First, $\\boxed{${m}}$ is the number of cases. Removing the repeats, the final answer is $\\boxed{${n}}$.`, intended: true },
      { variant: 'final box first', response: `The answer is $\\boxed{${n}}$. Check: $\\boxed{${m}}$ is the total before removing repeats.`, intended: false },
      { variant: 'boxed twice', response: `We get $\\boxed{${n}}$, so the answer is $\\boxed{${n}}$.`, intended: true },
    ],
  };
};

/** Responses without a box, graded with prose extraction on (the evaluation setting). */
const prose: KindGenerator = (r) => {
  const n = r.int(2, 999);
  const p = r.int(1, 9);
  const q = p + r.int(1, 9);
  const frac = r.bool();
  const gold = frac ? `\\frac{${p}}{${q}}` : String(n);
  const right = frac ? `\\frac{${p}}{${q}}` : String(n);
  const wrong = frac ? `\\frac{${q}}{${p}}` : String(n + 1);
  const say = (a: string): Form[] => [
    { variant: 'final answer is $…$', response: `Adding the cases gives ${r.int(2, 50)} ways.\n\nThe final answer is $${a}$.`, intended: a === right },
    { variant: 'answer: \\(…\\)', response: `We compute step by step.\n**Answer:** \\(${a}\\)`, intended: a === right },
    { variant: 'display math last', response: `Hence\n\\[ x = ${a} \\]`, intended: a === right },
  ];
  const forms = [...say(right), ...say(wrong)];
  if (!frac) forms.push({ variant: 'plain answer is', response: `Counting again, the answer is ${n}.`, intended: true }, { variant: 'plain answer is, wrong', response: `Counting again, the answer is ${n + 2}.`, intended: false });
  return { gold, forms };
};

export const KINDS: Record<string, KindGenerator> = {
  integer, thousands, fraction, decimal, surd, pi, percent, units, scientific, interval, inequality, set, tuple,
  pair_list: pairList, matrix, equation, expression, text, ratio, assignment, approximation,
  big_operator: bigOperator, euler, last_box: lastBox, prose,
};

const LEADS = [
  'Let me work through this step by step.\n\n',
  'We simplify the expression and check each case.\n',
  '',
  'Step 1: set up the equation. Step 2: solve it.\n\n',
];
const TAILS = [
  (a: string) => `Therefore, the final answer is $\\boxed{${a}}$.`,
  (a: string) => `The answer is \\(\\boxed{${a}}\\).`,
  (a: string) => `\\[\n\\boxed{${a}}\n\\]`,
  (a: string) => `So we get $\\boxed{${a}}$`,
  (a: string) => `**Final Answer**\n\\[ \\boxed{${a}} \\]`,
];

/** gem-ts's verdict on a case; the prose kind is graded as an evaluation is, with prose extraction on. */
export function gradeCase(c: Pick<DifferentialCase, 'kind' | 'gold' | 'response'>, multiBox: MultiBoxRule = 'adjacent'): boolean {
  return gradeMathResponse(c.response, [c.gold], { multiBox, extractFromProse: c.kind === 'prose' }).correct;
}

/** `goldsPerKind` golds of every kind, all their forms; ids are positions. */
export function generateCorpus(seed: number, goldsPerKind: number): DifferentialCase[] {
  const r = new Rng(seed);
  const out: DifferentialCase[] = [];
  for (const [kind, make] of Object.entries(KINDS)) {
    for (let i = 0; i < goldsPerKind; i++) {
      const { gold, forms } = make(r);
      for (const f of forms) {
        const response = f.response ?? `${pick(r, LEADS)}${pick(r, TAILS)(f.answer!)}`;
        out.push({ id: out.length, kind, variant: f.variant, gold, response, intended: f.intended });
      }
    }
  }
  return out;
}
