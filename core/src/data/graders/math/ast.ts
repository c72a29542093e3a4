/**
 * The parsed form of an answer: expressions (numbers, symbols, operations, functions) and the
 * structures answers come in (relations, sets, tuples, intervals, matrices, text).
 */
import type { Rational } from './rational.ts';

export type Expr =
  /**
   * `float` marks a decimal literal: it is compared after rounding, as math-verify does; `places` is
   * the number of decimals it is written with (`0.6670` has 4), its own precision.
   */
  | { k: 'num'; value: Rational; float: boolean; places?: number }
  | { k: 'sym'; name: string }
  | { k: 'const'; name: 'pi' | 'inf' }
  | { k: 'add'; terms: Expr[] }
  | { k: 'mul'; factors: Expr[] }
  | { k: 'neg'; x: Expr }
  | { k: 'div'; num: Expr; den: Expr }
  | { k: 'pow'; base: Expr; exp: Expr }
  | { k: 'fn'; name: string; args: Expr[] }
  | { k: 'pct'; x: Expr }
  /** `\sum_{v=lo}^{hi} body` and `\prod`: finite ones are evaluated term by term. */
  | { k: 'bigop'; op: 'sum' | 'prod'; v: string; lo: Expr; hi: Expr; body: Expr }
  | { k: 'text'; text: string };

export type RelOp = '=' | '<' | '>' | '<=' | '>=' | '!=' | 'in';

export type Answer =
  | Expr
  /** A chain `a op b op c`; `ops.length === items.length - 1`. */
  | { k: 'rel'; ops: RelOp[]; items: Answer[] }
  /** `\{a, b\}` */
  | { k: 'set'; items: Answer[] }
  /** A bare comma list `a, b` (math-verify's unordered FiniteSet that keeps its written order). */
  | { k: 'list'; items: Answer[] }
  /** `(a, b, c)` with three or more items, or `[a, b, c]`. */
  | { k: 'tuple'; items: Answer[] }
  /** Two items in brackets: an interval, or a pair when both ends are open. */
  | { k: 'interval'; lo: Answer; hi: Answer; loOpen: boolean; hiOpen: boolean }
  | { k: 'union'; parts: Answer[] }
  | { k: 'matrix'; rows: Answer[][] }
  /** `a \pm b`: both values. */
  | { k: 'pm'; a: Expr; b: Expr };

export const EXPR_KINDS: ReadonlySet<string> = new Set(['num', 'sym', 'const', 'add', 'mul', 'neg', 'div', 'pow', 'fn', 'pct', 'bigop', 'text']);

export function isExpr(a: Answer): a is Expr {
  return EXPR_KINDS.has(a.k);
}
