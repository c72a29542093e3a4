/**
 * Free variables of a whole answer and renaming them: the non-strict comparison (math-verify's
 * strict=False) matches the answer's variables to the gold's by position, so `f(y) = y + 1` is
 * accepted for `f(x) = x + 1`.
 */
import type { Answer, Expr } from './ast.ts';
import { isExpr } from './ast.ts';
import { freeSymbols } from './evaluate.ts';

/** The direct parts of a structured answer (relations, sets, tuples, intervals, matrices). */
function parts(a: Answer): Answer[] {
  switch (a.k) {
    case 'rel':
      return a.items;
    case 'set':
    case 'list':
    case 'tuple':
      return a.items;
    case 'interval':
      return [a.lo, a.hi];
    case 'union':
      return a.parts;
    case 'matrix':
      return a.rows.flat();
    case 'pm':
      return [a.a, a.b];
    default:
      return [];
  }
}

export function answerSymbols(a: Answer, out = new Set<string>()): Set<string> {
  if (isExpr(a)) return freeSymbols(a, out);
  for (const p of parts(a)) answerSymbols(p, out);
  return out;
}

function renameExpr(e: Expr, to: ReadonlyMap<string, string>): Expr {
  switch (e.k) {
    case 'sym':
      return to.has(e.name) ? { k: 'sym', name: to.get(e.name)! } : e;
    case 'add':
      return { k: 'add', terms: e.terms.map((t) => renameExpr(t, to)) };
    case 'mul':
      return { k: 'mul', factors: e.factors.map((t) => renameExpr(t, to)) };
    case 'neg':
    case 'pct':
      return { k: e.k, x: renameExpr(e.x, to) };
    case 'div':
      return { k: 'div', num: renameExpr(e.num, to), den: renameExpr(e.den, to) };
    case 'pow':
      return { k: 'pow', base: renameExpr(e.base, to), exp: renameExpr(e.exp, to) };
    case 'fn':
      return { k: 'fn', name: e.name, args: e.args.map((t) => renameExpr(t, to)) };
    case 'bigop':
      return { ...e, lo: renameExpr(e.lo, to), hi: renameExpr(e.hi, to), body: to.has(e.v) ? e.body : renameExpr(e.body, to) };
    default:
      return e;
  }
}

function rename(a: Answer, to: ReadonlyMap<string, string>): Answer {
  if (isExpr(a)) return renameExpr(a, to);
  const r = (x: Answer) => rename(x, to);
  switch (a.k) {
    case 'rel':
      return { ...a, items: a.items.map(r) };
    case 'set':
    case 'list':
    case 'tuple':
      return { ...a, items: a.items.map(r) };
    case 'interval':
      return { ...a, lo: r(a.lo), hi: r(a.hi) };
    case 'union':
      return { ...a, parts: a.parts.map(r) };
    case 'matrix':
      return { ...a, rows: a.rows.map((row) => row.map(r)) };
    case 'pm':
      return { k: 'pm', a: renameExpr(a.a, to), b: renameExpr(a.b, to) };
  }
}

/** `pred` with its variables renamed to the gold's (both sorted), when both have as many. */
export function matchVariables(gold: Answer, pred: Answer): Answer {
  const g = [...answerSymbols(gold)].sort();
  const p = [...answerSymbols(pred)].sort();
  if (g.length !== p.length || g.every((x, i) => x === p[i])) return pred;
  return rename(pred, new Map(p.map((x, i) => [x, g[i]])));
}
