/**
 * When two parsed answers mean the same thing. The rules follow math-verify's (our anchor), in our
 * own formulation:
 * - an assignment gold `x = 3` matches a bare `3`, and an equation answer is judged by its last side;
 * - relations match when lhs − rhs agree (or are negated, for = and for flipped inequalities);
 * - sets are unordered, tuples ordered; an open interval (a, b) also reads as the pair (a, b);
 * - a decimal literal on either side means "compare after rounding to `precision` places"; one with at
 *   least 4 places against an exact value is also right when it is that value rounded to its own places;
 *   an integer percentage matches the bare integer (50% ~ 50);
 * - otherwise values must agree exactly (rationals) or to 1e-10 (irrationals), and expressions
 *   with free symbols must agree at several random points;
 * - words compare case-insensitively, `\text{abc}` matching the letters a·b·c written bare.
 */
import type { Answer, Expr, RelOp } from './ast.ts';
import { isExpr } from './ast.ts';
import { evaluate, freeSymbols, toFloat, type Num } from './evaluate.ts';
import * as Q from './rational.ts';
import { matchVariables } from './variables.ts';

export interface CompareOptions {
  /** Decimal places a decimal answer is rounded to before comparing (math-verify's float_rounding). */
  precision: number;
  /** Variable names matter (`x + 1` ≠ `y + 1`); off, the variables are matched in sorted order. */
  strict: boolean;
}

export const DEFAULT_COMPARE: CompareOptions = { precision: 6, strict: true };

/** Points at which expressions with free symbols are compared (fixed: grading is deterministic). */
const SAMPLE_POINTS = [
  [0.6180339887, 1.4142135623, 2.7182818284, 0.5772156649, 1.7320508075, 3.3166247903],
  [-1.3247179572, -0.8414709848, -2.2360679774, -1.6180339887, -0.3183098861, -2.6457513110],
  [2.5029078750, -1.2020569031, 0.7071067811, -3.1415926535, 1.4655712318, -0.9159655941],
  [1.9021130325, 0.4142135623, 1.2599210498, 2.0945514815, 0.8090169943, 1.1892071150],
];

/* ----------------------------------------------------------------- numbers and expressions */


function numbersClose(a: Num, b: Num): boolean {
  if (a.q && b.q) return Q.equal(a.q, b.q);
  const x = toFloat(a);
  const y = toFloat(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return false;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  return Math.abs(x - y) <= 1e-10 * Math.max(Math.abs(x), Math.abs(y)) || Math.abs(x - y) < 1e-12;
}

function rounded(v: Num, cmp: CompareOptions): Q.Rational | number {
  if (v.q) return Q.roundDecimal(v.q, cmp.precision);
  return Math.round(v.f! * 10 ** cmp.precision);
}

function roundedEqual(a: Num, b: Num, cmp: CompareOptions): boolean {
  const ra = rounded(a, cmp);
  const rb = rounded(b, cmp);
  if (typeof ra !== 'number' && typeof rb !== 'number') return Q.equal(ra, rb);
  const fa = typeof ra === 'number' ? ra : Math.round(Q.toNumber(ra) * 10 ** cmp.precision);
  const fb = typeof rb === 'number' ? rb : Math.round(Q.toNumber(rb) * 10 ** cmp.precision);
  if (Math.abs(fa) > 2 ** 52 || Math.abs(fb) > 2 ** 52) return numbersClose(a, b);
  return fa === fb;
}

/**
 * A decimal written with at least this many places is compared at its own precision against an exact
 * value (`0.6667` for 2/3, `1.4142` for √2); a shorter one only at `precision` (`0.33` ≁ 1/3).
 */
const MIN_OWN_PLACES = 4;

/** The decimals a decimal atom is written with, as places of its value (`66.67\%` has 4). */
function writtenPlaces(e: Expr): number | undefined {
  if (e.k === 'num') return e.places;
  if (e.k === 'neg') return writtenPlaces(e.x);
  if (e.k === 'pct') {
    const p = writtenPlaces(e.x);
    return p === undefined ? undefined : p + 2;
  }
  return undefined;
}

/**
 * Is the decimal `d`, written with `places` decimals, the exact value `x` correctly rounded there?
 * |d − x| ≤ half a unit in the last place: either rounding of a tie counts (half-up and half-even).
 * A truncation (`0.6666` for 2/3) is not a rounding and fails.
 */
function roundsTo(d: Num, x: Num, places: number): boolean {
  if (d.q && x.q) {
    const diff = Q.sub(d.q, x.q);
    const abs = diff.n < 0n ? -diff.n : diff.n;
    return 2n * abs * 10n ** BigInt(places) <= diff.d;
  }
  const [a, b] = [toFloat(d), toFloat(x)];
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= 0.5 * 10 ** -places * (1 + 1e-9);
}

/** A decimal literal, possibly negated or as a percentage (math-verify's Float atoms). */
function isFloatAtom(e: Expr): boolean {
  if (e.k === 'num') return e.float;
  if (e.k === 'pct' || e.k === 'neg') return isFloatAtom(e.x);
  return false;
}

/**
 * The integer of `n` or `n%`, else undefined (math-verify lets 9% match 9). A percentage written
 * with a zero decimal (`82.0\%`) is the same whole percentage; math-verify would compare 0.82 to 82.
 */
function integerOrPercent(e: Expr): bigint | undefined {
  const inner = e.k === 'pct' ? e.x : e;
  if (inner.k === 'num' && (!inner.float || e.k === 'pct') && Q.isInteger(inner.value)) return inner.value.n;
  return undefined;
}

/** Letters of a word: a text node, a multi-letter symbol, or a product of single letters. */
function wordOf(e: Expr): string | undefined {
  if (e.k === 'text') return e.text;
  if (e.k === 'sym') return e.name.toLowerCase();
  if (e.k === 'mul' && e.factors.every((f) => f.k === 'sym' && f.name.length === 1)) {
    return e.factors.map((f) => (f as { name: string }).name.toLowerCase()).join('');
  }
  return undefined;
}

function exprEqual(gold: Expr, pred: Expr, cmp: CompareOptions): boolean {
  if (gold.k === 'text' || pred.k === 'text' || (gold.k === 'sym' && pred.k !== 'sym' && pred.k !== 'mul') || (pred.k === 'sym' && gold.k !== 'sym' && gold.k !== 'mul')) {
    const [g, p] = [wordOf(gold), wordOf(pred)];
    if (g !== undefined && p !== undefined) return g === p;
    if (gold.k === 'text' || pred.k === 'text') return false;
  }
  if ((gold.k === 'sym' || pred.k === 'sym') && (gold.k === 'mul' || pred.k === 'mul' || (gold.k === 'sym' && pred.k === 'sym'))) {
    const [g, p] = [wordOf(gold), wordOf(pred)];
    if (g !== undefined && p !== undefined && g === p) return true;
  }
  const vars = new Set([...freeSymbols(gold), ...freeSymbols(pred)]);
  if (vars.size === 0) {
    const a = evaluate(gold);
    const b = evaluate(pred);
    if (!a || !b) return false;
    if (gold.k === 'pct' || pred.k === 'pct') {
      const [ig, ip] = [integerOrPercent(gold), integerOrPercent(pred)];
      if (ig !== undefined && ip !== undefined) return ig === ip;
    }
    if (isFloatAtom(gold) || isFloatAtom(pred)) {
      // Against an exact integer a decimal must be that integer (2.0 ~ 2, but 2.0000001 ≁ 2), as in
      // math-verify, where a rounded Float never equals an Integer and only exact equality is left.
      const exactSide = isFloatAtom(gold) ? b : a;
      const oneDecimal = !(isFloatAtom(gold) && isFloatAtom(pred));
      if (exactSide.q && Q.isInteger(exactSide.q) && oneDecimal) return numbersClose(a, b) && toFloat(a) === toFloat(b);
      if (oneDecimal) {
        // A rounded decimal against an exact value, on either side: its own places decide when it has enough.
        // Also past `precision`: 0.5454545 is 6/11 to 7 places, though rounding it again to 6 gives 0.545454.
        const places = writtenPlaces(isFloatAtom(gold) ? gold : pred);
        const decimal = isFloatAtom(gold) ? a : b;
        if (places !== undefined && places >= MIN_OWN_PLACES && roundsTo(decimal, exactSide, places)) return true;
      }
      return roundedEqual(a, b, cmp);
    }
    const [ig, ip] = [integerOrPercent(gold), integerOrPercent(pred)];
    if (ig !== undefined && ip !== undefined) return ig === ip;
    return numbersClose(a, b);
  }
  if (isFloatAtom(gold) || isFloatAtom(pred)) return false;
  return sameAtPoints(gold, pred, [...vars].sort()) || canonical(gold) === canonical(pred);
}

/**
 * A text form of an expression in which sums and products list their operands in a fixed order and a
 * `\sum`/`\prod` index has one name: the same expression with commuted factors or terms, for values the
 * points cannot reach (`\sum_{k=0}^{n-1} F_k F_{n-k-1}` with a symbolic bound).
 */
function canonical(e: Expr): string {
  switch (e.k) {
    case 'add':
      return `(+ ${e.terms.map(canonical).sort().join(' ')})`;
    case 'mul':
      return `(* ${e.factors.map(canonical).sort().join(' ')})`;
    case 'neg':
    case 'pct':
      return `(${e.k} ${canonical(e.x)})`;
    case 'div':
      return `(/ ${canonical(e.num)} ${canonical(e.den)})`;
    case 'pow':
      return `(^ ${canonical(e.base)} ${canonical(e.exp)})`;
    case 'fn':
      return `(${e.name} ${e.args.map(canonical).join(' ')})`;
    case 'num':
      // The value, not how many places it was written with (0.5 and 0.50 are one number here).
      return `${e.value.n}/${e.value.d}${e.float ? 'f' : ''}`;
    case 'bigop': {
      const body = canonical(e.body).split(`"${e.v}"`).join('#');
      return `(${e.op} ${canonical(e.lo)} ${canonical(e.hi)} ${body})`;
    }
    default:
      return JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  }
}

function sameAtPoints(gold: Expr, pred: Expr, vars: string[]): boolean {
  let compared = 0;
  for (const point of SAMPLE_POINTS) {
    const values = new Map(vars.map((v, i) => [v, point[i % point.length] + Math.floor(i / point.length)]));
    const a = evaluate(gold, values);
    const b = evaluate(pred, values);
    if (!a || !b) return false;
    // Outside both sides' real domain (a root or log of a negative) a point says nothing; outside
    // only one side's, the two expressions differ there (ln x² is not 2 ln x for x < 0).
    const [nanA, nanB] = [Number.isNaN(toFloat(a)), Number.isNaN(toFloat(b))];
    if (nanA && nanB) continue;
    if (nanA || nanB) return false;
    if (!numbersClose(a, b)) return false;
    compared++;
  }
  return compared > 0;
}

/* ----------------------------------------------------------------- relations */

const INVERSE: Partial<Record<RelOp, RelOp>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

const isEquationOp = (op: RelOp): boolean => op === '=' || op === 'in';

function isEquation(a: Answer): a is Extract<Answer, { k: 'rel' }> {
  return a.k === 'rel' && a.ops.every(isEquationOp);
}

/**
 * What a gold names rather than computes: symbols only, alone or as a product, ratio, absolute value or
 * tuple of them (`x`, `xy`, `(p, q)`, `S_{ABD}:S`, `\frac{AM}{MC}`, `|PQ|`). No numbers, no sums: the
 * left side of `x + 2y = 3` is part of an equation, not a name.
 */
function isName(a: Answer): boolean {
  switch (a.k) {
    case 'sym':
    case 'text':
      return true;
    case 'mul':
      return a.factors.every(isName);
    case 'div':
      return isName(a.num) && isName(a.den);
    case 'fn':
      return a.name === 'abs' && a.args.length === 1 && isName(a.args[0]);
    case 'tuple':
      return a.items.every(isName);
    case 'interval':
      return a.loOpen && a.hiOpen && isName(a.lo) && isName(a.hi);
    default:
      return false;
  }
}

const isConstant = (a: Answer) => isExpr(a) && freeSymbols(a).size === 0;

/**
 * `x = …`, `(p, q) = (3, 2)`, `|PQ| = 4`: the left side is a name. A chain of equalities between
 * constants (`\frac{1}{3} = 0.333`, what is left of `1 = \zzz = x = 0`) assigns its last side too.
 */
function isAssignment(a: Answer): a is Extract<Answer, { k: 'rel' }> {
  if (!isEquation(a)) return false;
  return isName(a.items[0]) || (a.ops.every((op) => op === '=') && a.items.every(isConstant));
}

function diff(l: Answer, r: Answer): Expr | undefined {
  return isExpr(l) && isExpr(r) ? { k: 'add', terms: [l, { k: 'neg', x: r }] } : undefined;
}

/**
 * Equations with the same solutions because one is the other times a non-zero constant
 * (`2x + 4y - 3 = 0` and `y = -x/2 + 3/4`): (lhs − rhs) of the two have a constant ratio.
 */
function proportional(gd: Expr, pd: Expr): boolean {
  const vars = [...new Set([...freeSymbols(gd), ...freeSymbols(pd)])].sort();
  if (vars.length === 0) return false;
  let ratio: number | undefined;
  let compared = 0;
  for (const point of SAMPLE_POINTS) {
    const values = new Map(vars.map((v, i) => [v, point[i % point.length] + Math.floor(i / point.length)]));
    const a = evaluate(gd, values);
    const b = evaluate(pd, values);
    if (!a || !b) return false;
    const [x, y] = [toFloat(a), toFloat(b)];
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    if (!Number.isFinite(x) || !Number.isFinite(y) || x === 0 || y === 0) return false;
    const r = x / y;
    if (ratio === undefined) ratio = r;
    else if (Math.abs(r - ratio) > 1e-9 * Math.abs(ratio)) return false;
    compared++;
  }
  return compared >= 2;
}

function compareSingleRelation(g: [Answer, RelOp, Answer], p: [Answer, RelOp, Answer], cmp: CompareOptions): boolean {
  const [gl, gop, gr] = g;
  const [pl, pop, pr] = p;
  const gd = diff(gl, gr);
  const pd = diff(pl, pr);
  if (!gd || !pd) return gop === pop && same(gl, pl, cmp) && same(gr, pr, cmp);
  if (gop === pop && exprEqual(gd, pd, cmp)) return true;
  if (gop === '=' && pop === '=' && proportional(gd, pd)) return true;
  const flipped = gop === '=' || gop === '!=' ? gop : INVERSE[gop];
  return flipped === pop && exprEqual(gd, { k: 'neg', x: pd }, cmp);
}

function splitChain(a: Extract<Answer, { k: 'rel' }>): [Answer, RelOp, Answer][] {
  return a.ops.map((op, i) => [a.items[i], op, a.items[i + 1]]);
}

function compareRelations(gold: Extract<Answer, { k: 'rel' }>, pred: Extract<Answer, { k: 'rel' }>, cmp: CompareOptions): boolean {
  const g = splitChain(gold);
  const p = splitChain(pred);
  if (g.length !== p.length) return false;
  if (g.every((r, i) => compareSingleRelation(r, p[i], cmp))) return true;
  // A chain read the other way round (`b \ge x \ge a` for `a \le x \le b`) states the same bounds.
  return g.length === 2 && g.every((r, i) => compareSingleRelation(r, p[1 - i], cmp));
}

/** `x < 3`, `2 \le x < 5`, `x \ge 1`, `0 < f(x) < 1` → the interval it describes. */
function relationAsInterval(rel: Extract<Answer, { k: 'rel' }>): Answer | undefined {
  // The bounded side is a variable or any expression of variables (`0 < f(x) < 1`); the bounds are numbers.
  const isVar = (a: Answer) => isExpr(a) && freeSymbols(a).size > 0;
  const inf: Expr = { k: 'const', name: 'inf' };
  const minusInf: Expr = { k: 'neg', x: inf };
  const chain = splitChain(rel);
  if (chain.length === 1) {
    let [l, op, r] = chain[0];
    if (isVar(r) && !isVar(l) && INVERSE[op]) [l, op, r] = [r, INVERSE[op]!, l];
    if (!isVar(l) || isVar(r)) return undefined;
    if (op === '<' || op === '<=') return { k: 'interval', lo: minusInf, hi: r, loOpen: true, hiOpen: op === '<' };
    if (op === '>' || op === '>=') return { k: 'interval', lo: r, hi: inf, loOpen: op === '>', hiOpen: true };
    return undefined;
  }
  if (chain.length === 2 && isVar(rel.items[1]) && !isVar(rel.items[0]) && !isVar(rel.items[2])) {
    const [o1, o2] = rel.ops;
    const up = (o: RelOp) => o === '<' || o === '<=';
    const down = (o: RelOp) => o === '>' || o === '>=';
    if (up(o1) && up(o2)) return { k: 'interval', lo: rel.items[0], hi: rel.items[2], loOpen: o1 === '<', hiOpen: o2 === '<' };
    if (down(o1) && down(o2)) return { k: 'interval', lo: rel.items[2], hi: rel.items[0], loOpen: o2 === '>', hiOpen: o1 === '>' };
  }
  return undefined;
}

/**
 * The set a relation describes: its interval, or for a bounded absolute value the union of its
 * two mirrored halves (`2 \le |w| \le 3` is [-3, -2] ∪ [2, 3]; `|x| > 1` is (-∞, -1) ∪ (1, ∞)).
 */
function relationAsSet(rel: Extract<Answer, { k: 'rel' }>): Answer | undefined {
  const bounded = rel.items.find((a) => isExpr(a) && freeSymbols(a).size > 0);
  if (bounded?.k !== 'fn' || bounded.name !== 'abs') return relationAsInterval(rel);
  const x: Expr = bounded.args[0];
  const interval = relationAsInterval({ ...rel, items: rel.items.map((a) => (a === bounded ? x : a)) });
  if (interval?.k !== 'interval') return undefined;
  const lo = numericValue(interval.lo);
  const neg = (e: Answer): Expr => ({ k: 'neg', x: e as Expr });
  const infinite = lo === -Infinity;
  if (infinite || (lo !== undefined && lo <= 0)) {
    // |x| < b (or a lower bound below zero, which every |x| meets) is the symmetric interval (-b, b).
    return { k: 'interval', lo: neg(interval.hi), hi: interval.hi, loOpen: interval.hiOpen, hiOpen: interval.hiOpen };
  }
  return {
    k: 'union',
    parts: [
      { k: 'interval', lo: neg(interval.hi), hi: neg(interval.lo), loOpen: interval.hiOpen, hiOpen: interval.loOpen },
      { ...interval },
    ],
  };
}

/* ----------------------------------------------------------------- sets, tuples, intervals */

type Collection = { kind: 'set' | 'tuple'; items: Answer[] };

function numericValue(a: Answer): number | undefined {
  if (!isExpr(a)) return undefined;
  const v = evaluate(a);
  return v ? toFloat(v) : undefined;
}

/** An interval whose ends are in the wrong order is really a tuple (math-verify does the same). */
function properInterval(a: Extract<Answer, { k: 'interval' }>): boolean {
  const lo = numericValue(a.lo);
  const hi = numericValue(a.hi);
  if (lo === undefined || hi === undefined) return true;
  return lo < hi || (lo === hi && !a.loOpen && !a.hiOpen);
}

function asCollection(a: Answer): Collection | undefined {
  switch (a.k) {
    case 'set':
    case 'list':
      return { kind: 'set', items: a.items };
    case 'tuple':
      return { kind: 'tuple', items: a.items };
    case 'pm':
      return {
        kind: 'set',
        items: [
          { k: 'add', terms: [a.a, a.b] },
          { k: 'add', terms: [a.a, { k: 'neg', x: a.b }] },
        ],
      };
    case 'interval':
      return properInterval(a) ? undefined : { kind: 'tuple', items: [a.lo, a.hi] };
    default:
      return undefined;
  }
}

/** A set's items with repeats dropped (`1, 1, 2` is the set {1, 2}); long lists are kept as they are. */
function distinct(items: Answer[], cmp: CompareOptions): Answer[] {
  if (items.length > 32) return items;
  const out: Answer[] = [];
  for (const x of items) if (!out.some((y) => same(y, x, cmp))) out.push(x);
  return out;
}

function matchUnordered(gold: Answer[], pred: Answer[], cmp: CompareOptions): boolean {
  if (gold.length !== pred.length) return false;
  if (gold.length > 8) return gold.every((g, i) => same(g, pred[i], cmp));
  const used = new Array<boolean>(pred.length).fill(false);
  const place = (i: number): boolean => {
    if (i === gold.length) return true;
    for (let j = 0; j < pred.length; j++) {
      if (used[j] || !same(gold[i], pred[j], cmp)) continue;
      used[j] = true;
      if (place(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return place(0);
}

function matchOrdered(gold: Answer[], pred: Answer[], cmp: CompareOptions): boolean {
  return gold.length === pred.length && gold.every((g, i) => same(g, pred[i], cmp));
}

function compareIntervals(g: Extract<Answer, { k: 'interval' }>, p: Extract<Answer, { k: 'interval' }>, cmp: CompareOptions): boolean {
  return g.loOpen === p.loOpen && g.hiOpen === p.hiOpen && same(g.lo, p.lo, cmp) && same(g.hi, p.hi, cmp);
}

/** `\{1, 2\} \cup \{3\}` is the finite set {1, 2, 3}. */
function mergeFiniteUnion(a: Answer): Answer {
  if (a.k !== 'union' || !a.parts.every((p) => p.k === 'set')) return a;
  return { k: 'set', items: a.parts.flatMap((p) => (p as Extract<Answer, { k: 'set' }>).items) };
}

function compareStructures(gold: Answer, pred: Answer, cmp: CompareOptions): boolean {
  gold = mergeFiniteUnion(gold);
  pred = mergeFiniteUnion(pred);
  if (gold.k === 'interval' && pred.k === 'interval' && properInterval(gold) && properInterval(pred)) return compareIntervals(gold, pred, cmp);
  if (gold.k === 'union' || pred.k === 'union') {
    const gp = gold.k === 'union' ? gold.parts : [gold];
    const pp = pred.k === 'union' ? pred.parts : [pred];
    return gp.length > 1 && pp.length > 1 && matchUnordered(gp, pp, cmp);
  }
  // An open interval (a, b) doubles as the pair (a, b) when the other side is a list.
  const openPair = (a: Answer): Collection | undefined =>
    a.k === 'interval' && a.loOpen && a.hiOpen ? { kind: 'tuple', items: [a.lo, a.hi] } : undefined;
  let g = asCollection(gold);
  let p = asCollection(pred);
  if (!g && p) g = openPair(gold);
  if (!p && g) p = openPair(pred);
  if (g && p) {
    // A gold set is unordered; a gold tuple is read in the written order of the answer.
    if (g.kind === 'set') return matchUnordered(g.items, p.items, cmp) || (p.kind === 'set' && matchUnordered(distinct(g.items, cmp), distinct(p.items, cmp), cmp));
    return matchOrdered(g.items, p.items, cmp);
  }
  // A lone value against a one-element collection (`3, 3` is the set {3}).
  const single = (c: Collection): Answer | undefined => (c.items.length === 1 ? c.items[0] : c.kind === 'set' && distinct(c.items, cmp).length === 1 ? c.items[0] : undefined);
  if (g && !p && isExpr(pred)) {
    const only = single(g);
    return only !== undefined && same(only, pred, cmp);
  }
  if (p && !g && isExpr(gold)) {
    const only = single(p);
    return only !== undefined && same(gold, only, cmp);
  }
  return false;
}

/* ----------------------------------------------------------------- entry */

function lastSide(rel: Extract<Answer, { k: 'rel' }>): Answer {
  return rel.items[rel.items.length - 1];
}

/** True when `pred` expresses the same answer as `gold` (the order matters: gold sets the format). */
export function answersEqual(gold: Answer, pred: Answer, options: CompareOptions = DEFAULT_COMPARE): boolean {
  return same(gold, options.strict ? pred : matchVariables(gold, pred), options);
}

/** `z \in A \cup B` read as (z ∈ A) ∪ B: the membership takes the whole union. */
function membershipOfUnion(a: Answer): Answer {
  if (a.k !== 'union' || a.parts[0].k !== 'rel' || a.parts[0].ops.length !== 1 || a.parts[0].ops[0] !== 'in') return a;
  const [first, ...rest] = a.parts;
  return { k: 'rel', ops: ['in'], items: [first.items[0], { k: 'union', parts: [first.items[1], ...rest] }] };
}

function same(gold: Answer, pred: Answer, cmp: CompareOptions): boolean {
  gold = membershipOfUnion(gold);
  pred = membershipOfUnion(pred);
  if (isAssignment(gold)) gold = { k: 'rel', ops: ['='], items: [gold.items[0], lastSide(gold)] };
  if (isAssignment(pred)) pred = { k: 'rel', ops: ['='], items: [pred.items[0], lastSide(pred)] };
  if (isEquation(pred) && !isEquation(gold)) pred = lastSide(pred);
  else if (isAssignment(gold) && !isEquation(pred)) gold = lastSide(gold);

  // A relation and the set it describes match both ways (`x \in [-1, 4]` and `-1 \le x \le 4`).
  if (gold.k === 'rel' && pred.k !== 'rel' && (pred.k === 'interval' || pred.k === 'union')) {
    gold = relationAsSet(gold) ?? gold;
  } else if (pred.k === 'rel' && gold.k !== 'rel' && (gold.k === 'interval' || gold.k === 'union')) {
    pred = relationAsSet(pred) ?? pred;
  }
  if (gold.k === 'rel' && pred.k === 'rel') return compareRelations(gold, pred, cmp);
  if (gold.k === 'rel' || pred.k === 'rel') return false;
  if (gold.k === 'matrix' || pred.k === 'matrix') {
    return gold.k === 'matrix' && pred.k === 'matrix' && gold.rows.length === pred.rows.length &&
      gold.rows.every((r, i) => matchOrdered(r, pred.rows[i], cmp));
  }
  if (isExpr(gold) && isExpr(pred)) return exprEqual(gold, pred, cmp);
  return compareStructures(gold, pred, cmp);
}
