/**
 * Numeric evaluation of parsed expressions: exact over rationals while every step stays rational
 * (and small), in floating point otherwise. Free symbols take the values of `vars`; `e` is Euler's
 * number. Returns undefined for what has no numeric value (text, unknown functions, 0/0).
 */
import type { Expr } from './ast.ts';
import * as Q from './rational.ts';
import type { Rational } from './rational.ts';

export type Num = { q: Rational; f?: undefined } | { f: number; q?: undefined };

const exact = (q: Rational): Num => ({ q });
const approx = (f: number): Num => ({ f });
export const toFloat = (v: Num): number => (v.q ? Q.toNumber(v.q) : v.f!);

/** Largest integer whose factorial we compute exactly. */
const MAX_EXACT_FACTORIAL = 300;

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (x * x > n) x--;
  while ((x + 1n) * (x + 1n) <= n) x++;
  return x;
}

/** An exact k-th root of a non-negative rational, when there is one. */
function exactRoot(q: Rational, k: number): Rational | undefined {
  if (q.n < 0n || k < 1 || k > 64 || Q.bitSize(q) > 2048) return undefined;
  const root = (n: bigint): bigint | undefined => {
    let r: bigint;
    if (k === 2) r = isqrt(n);
    else {
      r = BigInt(Math.round(Number(n) ** (1 / k)));
      for (const c of [r - 1n, r, r + 1n]) if (c >= 0n && c ** BigInt(k) === n) return c;
      return undefined;
    }
    return r * r === n ? r : undefined;
  };
  const n = root(q.n);
  const d = root(q.d);
  return n !== undefined && d !== undefined ? Q.rat(n, d) : undefined;
}

function factorial(n: number): Num | undefined {
  if (!Number.isInteger(n) || n < 0) return undefined;
  if (n > MAX_EXACT_FACTORIAL) return undefined;
  let r = 1n;
  for (let i = 2n; i <= BigInt(n); i++) r *= i;
  return exact({ n: r, d: 1n });
}

function binom(n: number, k: number): Num | undefined {
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0 || n > 100000) return undefined;
  if (k < 0 || k > n) return exact({ n: 0n, d: 1n });
  let r = 1n;
  const kk = Math.min(k, n - k);
  for (let i = 0; i < kk; i++) r = (r * BigInt(n - i)) / BigInt(i + 1);
  return exact({ n: r, d: 1n });
}

function pow(b: Num, e: Num): Num | undefined {
  if (b.q && e.q) {
    if (Q.isInteger(e.q)) {
      if (e.q.n < 0n && Q.isZero(b.q)) return undefined;
      const r = Q.powInt(b.q, e.q.n);
      if (r) return exact(r);
    } else if (e.q.d <= 64n && b.q.n >= 0n) {
      const root = exactRoot(b.q, Number(e.q.d));
      if (root) {
        const r = Q.powInt(root, e.q.n);
        if (r) return exact(r);
      }
    }
  }
  const bf = toFloat(b);
  const ef = toFloat(e);
  // A real odd root of a negative number (∛-8 = -2).
  if (bf < 0 && e.q && !Q.isInteger(e.q) && e.q.d % 2n === 1n) {
    const mag = Math.abs(bf) ** ef;
    return approx(e.q.n % 2n === 0n ? mag : -mag);
  }
  return approx(bf ** ef);
}

/** ⌊n/d⌋ for d > 0 (BigInt division truncates toward zero). */
function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n < 0n && q * d !== n ? q - 1n : q;
}

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

function callFunction(name: string, args: Num[]): Num | undefined {
  const [a, b] = args;
  const x = toFloat(a);
  switch (name) {
    case 'sqrt': {
      if (a.q) {
        const r = exactRoot(a.q, 2);
        if (r) return exact(r);
      }
      return approx(Math.sqrt(x));
    }
    case 'abs':
      return a.q ? exact({ n: a.q.n < 0n ? -a.q.n : a.q.n, d: a.q.d }) : approx(Math.abs(x));
    case 'factorial':
      return factorial(x);
    case 'binom':
      return args.length === 2 ? binom(x, toFloat(b)) : undefined;
    case 'floor':
      return a.q ? exact(Q.rat(floorDiv(a.q.n, a.q.d))) : approx(Math.floor(x));
    case 'ceil':
      return a.q ? exact(Q.rat(-floorDiv(-a.q.n, a.q.d))) : approx(Math.ceil(x));
    case 'sin': return approx(Math.sin(x));
    case 'cos': return approx(Math.cos(x));
    case 'tan': return approx(Math.tan(x));
    case 'cot': return approx(1 / Math.tan(x));
    case 'sec': return approx(1 / Math.cos(x));
    case 'csc': return approx(1 / Math.sin(x));
    case 'arcsin': return approx(Math.asin(x));
    case 'arccos': return approx(Math.acos(x));
    case 'arctan': return approx(Math.atan(x));
    case 'sinh': return approx(Math.sinh(x));
    case 'cosh': return approx(Math.cosh(x));
    case 'tanh': return approx(Math.tanh(x));
    case 'exp': return approx(Math.exp(x));
    case 'ln': return approx(Math.log(x));
    // `\log x` is base 10 (as math-verify reads it); `\log_b x` is base b.
    case 'log': return approx(args.length === 2 ? Math.log(x) / Math.log(toFloat(b)) : Math.log10(x));
    case 'max': return args.length ? approx(Math.max(...args.map(toFloat))) : undefined;
    case 'min': return args.length ? approx(Math.min(...args.map(toFloat))) : undefined;
    case 'gcd': return args.every((v) => Number.isInteger(toFloat(v))) ? approx(args.map(toFloat).reduce(gcd)) : undefined;
    case 'lcm': return args.every((v) => Number.isInteger(toFloat(v))) ? approx(args.map(toFloat).reduce((p, c) => (p * c) / gcd(p, c))) : undefined;
    default:
      return undefined;
  }
}

/**
 * A float that overflowed (or divided by zero) from finite inputs has lost its value: it is reported
 * as unknown rather than as ±∞, so that 10^(10^10) and 10^(10^10) + 1 are never "equal at ∞".
 */
export function evaluate(e: Expr, vars?: ReadonlyMap<string, number>): Num | undefined {
  const v = evaluateRaw(e, vars);
  if (v?.f !== undefined && !Number.isFinite(v.f) && !Number.isNaN(v.f) && !hasInfinity(e)) return undefined;
  return v;
}

function hasInfinity(e: Expr): boolean {
  switch (e.k) {
    case 'const':
      return e.name === 'inf';
    case 'add':
      return e.terms.some(hasInfinity);
    case 'mul':
      return e.factors.some(hasInfinity);
    case 'neg':
    case 'pct':
      return hasInfinity(e.x);
    case 'div':
      return hasInfinity(e.num) || hasInfinity(e.den);
    case 'pow':
      return hasInfinity(e.base) || hasInfinity(e.exp);
    case 'fn':
      return e.args.some(hasInfinity);
    case 'bigop':
      return hasInfinity(e.lo) || hasInfinity(e.hi) || hasInfinity(e.body);
    default:
      return false;
  }
}

function evaluateRaw(e: Expr, vars?: ReadonlyMap<string, number>): Num | undefined {
  switch (e.k) {
    case 'num':
      return exact(e.value);
    case 'sym': {
      const v = vars?.get(e.name);
      if (v !== undefined) return approx(v);
      return e.name === 'e' ? approx(Math.E) : undefined;
    }
    case 'const':
      return approx(e.name === 'pi' ? Math.PI : Infinity);
    case 'neg': {
      const x = evaluate(e.x, vars);
      return x && (x.q ? exact(Q.neg(x.q)) : approx(-x.f!));
    }
    case 'pct': {
      const x = evaluate(e.x, vars);
      return x && (x.q ? exact(Q.div(x.q, { n: 100n, d: 1n })) : approx(x.f! / 100));
    }
    case 'add':
    case 'mul': {
      let acc: Num = exact({ n: e.k === 'add' ? 0n : 1n, d: 1n });
      for (const t of e.k === 'add' ? e.terms : e.factors) {
        const v = evaluate(t, vars);
        if (!v) return undefined;
        if (acc.q && v.q && Q.bitSize(acc.q) + Q.bitSize(v.q) < 8192) acc = exact(e.k === 'add' ? Q.add(acc.q, v.q) : Q.mul(acc.q, v.q));
        else acc = approx(e.k === 'add' ? toFloat(acc) + toFloat(v) : toFloat(acc) * toFloat(v));
      }
      return acc;
    }
    case 'div': {
      const n = evaluate(e.num, vars);
      const d = evaluate(e.den, vars);
      if (!n || !d) return undefined;
      if (n.q && d.q) return Q.isZero(d.q) ? undefined : exact(Q.div(n.q, d.q));
      return approx(toFloat(n) / toFloat(d));
    }
    case 'pow': {
      const b = evaluate(e.base, vars);
      const x = evaluate(e.exp, vars);
      return b && x ? pow(b, x) : undefined;
    }
    case 'fn': {
      const args: Num[] = [];
      for (const a of e.args) {
        const v = evaluate(a, vars);
        if (!v) return undefined;
        args.push(v);
      }
      return callFunction(e.name, args);
    }
    case 'bigop':
      return evaluateBigOperator(e, vars);
    case 'text':
      return undefined;
  }
}

/** Terms a finite `\sum`/`\prod` may have; a longer one has no value here. */
const MAX_TERMS = 1000;
/** Nodes a big operator may evaluate in all, nested operators multiplied out (`\sum\sum\sum` stays bounded). */
const MAX_WORK = 20000;

/** Nodes evaluated to evaluate `e`, counting each term of a (nested) big operator; Infinity if unbounded. */
function work(e: Expr): number {
  switch (e.k) {
    case 'add':
      return e.terms.reduce((a, t) => a + work(t), 1);
    case 'mul':
      return e.factors.reduce((a, t) => a + work(t), 1);
    case 'neg':
    case 'pct':
      return 1 + work(e.x);
    case 'div':
      return 1 + work(e.num) + work(e.den);
    case 'pow':
      return 1 + work(e.base) + work(e.exp);
    case 'fn':
      return e.args.reduce((a, t) => a + work(t), 1);
    case 'bigop': {
      const [lo, hi] = [e.lo, e.hi].map((x) => (x.k === 'num' && Q.isInteger(x.value) ? Number(x.value.n) : undefined));
      const terms = lo !== undefined && hi !== undefined ? Math.max(0, hi - lo + 1) : MAX_TERMS;
      return 1 + terms * work(e.body);
    }
    default:
      return 1;
  }
}

/** `e` with the bound variable `v` replaced by the number `value`. */
function substitute(e: Expr, v: string, value: Expr): Expr {
  switch (e.k) {
    case 'sym':
      return e.name === v ? value : e;
    case 'add':
      return { k: 'add', terms: e.terms.map((t) => substitute(t, v, value)) };
    case 'mul':
      return { k: 'mul', factors: e.factors.map((t) => substitute(t, v, value)) };
    case 'neg':
    case 'pct':
      return { k: e.k, x: substitute(e.x, v, value) };
    case 'div':
      return { k: 'div', num: substitute(e.num, v, value), den: substitute(e.den, v, value) };
    case 'pow':
      return { k: 'pow', base: substitute(e.base, v, value), exp: substitute(e.exp, v, value) };
    case 'fn':
      return { k: 'fn', name: e.name, args: e.args.map((t) => substitute(t, v, value)) };
    case 'bigop':
      // An inner operator over the same variable shadows it.
      return { ...e, lo: substitute(e.lo, v, value), hi: substitute(e.hi, v, value), body: e.v === v ? e.body : substitute(e.body, v, value) };
    default:
      return e;
  }
}

function evaluateBigOperator(e: Extract<Expr, { k: 'bigop' }>, vars?: ReadonlyMap<string, number>): Num | undefined {
  const lo = evaluate(e.lo, vars);
  const hi = evaluate(e.hi, vars);
  if (!lo?.q || !hi?.q || !Q.isInteger(lo.q) || !Q.isInteger(hi.q)) return undefined;
  const count = hi.q.n - lo.q.n + 1n;
  if (count > BigInt(MAX_TERMS) || Number(count) * work(e.body) > MAX_WORK) return undefined;
  const terms: Expr[] = [];
  for (let k = lo.q.n; k <= hi.q.n; k++) terms.push(substitute(e.body, e.v, { k: 'num', value: Q.rat(k), float: false }));
  // An empty sum is 0 and an empty product 1, as the add/mul identities give.
  return evaluate(e.op === 'sum' ? { k: 'add', terms } : { k: 'mul', factors: terms }, vars);
}

/** Free symbols of an expression (`e` counts as Euler's number, not a symbol). */
export function freeSymbols(e: Expr, out = new Set<string>()): Set<string> {
  switch (e.k) {
    case 'sym':
      if (e.name !== 'e') out.add(e.name);
      break;
    case 'add':
      e.terms.forEach((t) => freeSymbols(t, out));
      break;
    case 'mul':
      e.factors.forEach((t) => freeSymbols(t, out));
      break;
    case 'neg':
    case 'pct':
      freeSymbols(e.x, out);
      break;
    case 'div':
      freeSymbols(e.num, out);
      freeSymbols(e.den, out);
      break;
    case 'pow':
      freeSymbols(e.base, out);
      freeSymbols(e.exp, out);
      break;
    case 'fn':
      e.args.forEach((t) => freeSymbols(t, out));
      break;
    case 'bigop': {
      freeSymbols(e.lo, out);
      freeSymbols(e.hi, out);
      const inner = freeSymbols(e.body);
      inner.delete(e.v);
      inner.forEach((x) => out.add(x));
      break;
    }
    default:
      break;
  }
  return out;
}
