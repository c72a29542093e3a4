/**
 * A recursive-descent parser for the LaTeX that answers are written in: arithmetic with implicit
 * multiplication, fractions, roots, powers, functions, percentages, factorials, relations, sets,
 * tuples, intervals, unions, ± and matrices. Anything else is a ParseError (the grader then falls
 * back to comparing the normalised text).
 */
import type { Answer, Expr, RelOp } from './ast.ts';
import { isExpr } from './ast.ts';
import { parseDecimal } from './rational.ts';
import { ParseError, tokenize, type Token } from './tokenize.ts';

const FUNCTIONS = new Set([
  'sin', 'cos', 'tan', 'cot', 'sec', 'csc', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh',
  'log', 'ln', 'lg', 'exp', 'max', 'min', 'gcd', 'lcm', 'det',
]);
const GREEK = new Set([
  'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'varepsilon', 'zeta', 'eta', 'theta', 'vartheta', 'iota', 'kappa',
  'lambda', 'mu', 'nu', 'xi', 'rho', 'sigma', 'tau', 'upsilon', 'phi', 'varphi', 'chi', 'psi', 'omega',
  'Gamma', 'Delta', 'Theta', 'Lambda', 'Xi', 'Sigma', 'Phi', 'Psi', 'Omega', 'ell',
]);
const REL_CMDS: Record<string, RelOp> = {
  le: '<=', leq: '<=', leqslant: '<=', ge: '>=', geq: '>=', geqslant: '>=', lt: '<', gt: '>',
  ne: '!=', neq: '!=', in: 'in',
};
const TEXT_CMDS = new Set(['text', 'textrm', 'textnormal', 'textbf', 'textit', 'textsf', 'texttt', 'mbox', 'mathrm', 'mathbf', 'mathsf', 'mathtt', 'mathcal', 'mathbb', 'hbox']);
const MATRIX_ENVS = new Set(['pmatrix', 'bmatrix', 'matrix', 'Bmatrix', 'vmatrix', 'smallmatrix', 'array']);
const MAX_DEPTH = 120;

function num(text: string): Expr {
  const value = parseDecimal(text);
  if (!value) throw new ParseError(`bad number ${text}`);
  const dot = text.indexOf('.');
  return dot < 0 ? { k: 'num', value, float: false } : { k: 'num', value, float: true, places: text.length - dot - 1 };
}

function asExpr(a: Answer): Expr {
  if (!isExpr(a)) throw new ParseError(`${a.k} used inside arithmetic`);
  return a;
}

class Parser {
  private pos = 0;
  private depth = 0;
  private inAbs = 0;

  constructor(private readonly toks: Token[]) {}

  private peek(o = 0): Token | undefined {
    return this.toks[this.pos + o];
  }

  private isSym(text: string, o = 0): boolean {
    const t = this.peek(o);
    return t !== undefined && t.t === 'sym' && t.text === text;
  }

  private isCmd(...names: string[]): boolean {
    const t = this.peek();
    return t !== undefined && t.t === 'cmd' && names.includes(t.text);
  }

  private expectSym(text: string): void {
    if (!this.isSym(text)) throw new ParseError(`expected ${text}`);
    this.pos++;
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw new ParseError('nested too deeply');
  }

  parseAll(): Answer {
    const items = this.parseList(new Set());
    if (this.pos < this.toks.length) throw new ParseError(`unexpected ${this.toks[this.pos].text}`);
    if (items.length === 0) throw new ParseError('empty');
    return items.length === 1 ? items[0] : { k: 'list', items };
  }

  /**
   * Items separated by `,` or `;` up to (not including) a closer or the end. Where both appear, `;`
   * separates groups of comma-separated items: `p=5,q=2;p=7,q=2` is two pairs.
   */
  private parseList(closers: Set<string>): Answer[] {
    const groups: Answer[][] = [[]];
    const close = (): Answer[] => {
      if (groups.length === 1) return groups[0];
      return groups.filter((g) => g.length).map((g) => (g.length === 1 ? g[0] : { k: 'tuple', items: g }));
    };
    for (;;) {
      const t = this.peek();
      if (t === undefined || (t.t === 'sym' && closers.has(t.text)) || (t.t === 'cmd' && closers.has(`\\${t.text}`))) return close();
      groups[groups.length - 1].push(this.parseUnion());
      if (this.isSym(',') || this.isSym(';')) {
        if (this.isSym(';')) groups.push([]);
        this.pos++;
        continue;
      }
      const after = this.peek();
      if (after === undefined || (after.t === 'sym' && closers.has(after.text)) || (after.t === 'cmd' && closers.has(`\\${after.text}`))) return close();
      throw new ParseError(`unexpected ${after.text}`);
    }
  }

  private parseUnion(): Answer {
    const parts = [this.parseRelation()];
    while (this.isCmd('cup')) {
      this.pos++;
      parts.push(this.parseRelation());
    }
    return parts.length === 1 ? parts[0] : { k: 'union', parts };
  }

  private relOp(): RelOp | undefined {
    const t = this.peek();
    if (!t) return undefined;
    if (t.t === 'cmd') return REL_CMDS[t.text];
    if (t.t !== 'sym') return undefined;
    if (t.text === '=') return '=';
    if (t.text === '<') return this.isSym('=', 1) ? '<=' : '<';
    if (t.text === '>') return this.isSym('=', 1) ? '>=' : '>';
    if (t.text === '!' && this.isSym('=', 1)) return '!=';
    return undefined;
  }

  private consumeRelOp(op: RelOp): void {
    const t = this.peek()!;
    this.pos += t.t === 'sym' && (op === '<=' || op === '>=' || op === '!=') ? 2 : 1;
  }

  /**
   * A relation chain. `\approx` ends the exact part of an answer, as math-verify reads it: after a
   * bare variable it assigns (`x \approx 0.33` is `x = 0.33`), otherwise what follows it is an
   * approximation that is not graded (`\frac{1}{3} \approx 0.33` is 1/3).
   */
  private parseRelation(): Answer {
    if (this.isCmd('approx')) this.pos++;
    const items = [this.parseRatio()];
    const ops: RelOp[] = [];
    for (;;) {
      const op = this.relOp();
      if (op) {
        this.consumeRelOp(op);
        ops.push(op);
        items.push(this.parseRatio());
      } else if (this.isCmd('approx')) {
        this.pos++;
        if (ops.length === 0 && items[0].k === 'sym') {
          ops.push('=');
          items.push(this.parseRatio());
        } else this.skipApproximation();
      } else break;
    }
    return ops.length ? { k: 'rel', ops, items } : items[0];
  }

  /** The rest of a chain after an ungraded `\approx`. */
  private skipApproximation(): void {
    this.parseRatio();
    for (let op = this.relOp(); op || this.isCmd('approx'); op = this.relOp()) {
      if (op) this.consumeRelOp(op);
      else this.pos++;
      this.parseRatio();
    }
  }

  /** `a:b` is the ratio a/b (math-verify's reading); `V_1:V_2 = 11:21` then compares as values. */
  private parseRatio(): Answer {
    const first = this.parseSum();
    if (!this.isSym(':')) return first;
    let acc = asExpr(first);
    while (this.isSym(':')) {
      this.pos++;
      acc = { k: 'div', num: acc, den: asExpr(this.parseSum()) };
    }
    return acc;
  }

  private parseSum(): Answer {
    this.enter();
    let leadingPm = false;
    if (this.isCmd('pm')) {
      this.pos++;
      leadingPm = true;
    }
    const first = this.parseTerm();
    if (leadingPm) {
      this.depth--;
      return { k: 'pm', a: { k: 'num', value: { n: 0n, d: 1n }, float: false }, b: asExpr(first) };
    }
    if (!isExpr(first) && !(this.isSym('+') || this.isSym('-') || this.isCmd('pm', 'mp'))) {
      this.depth--;
      return first;
    }
    const terms: Expr[] = [asExpr(first)];
    for (;;) {
      if (this.isSym('+')) {
        this.pos++;
        terms.push(asExpr(this.parseTerm()));
      } else if (this.isSym('-')) {
        this.pos++;
        terms.push({ k: 'neg', x: asExpr(this.parseTerm()) });
      } else if (this.isCmd('pm', 'mp')) {
        this.pos++;
        const rest = this.parseSum();
        const a: Expr = terms.length === 1 ? terms[0] : { k: 'add', terms };
        this.depth--;
        if (rest.k === 'pm') throw new ParseError('nested ±');
        return { k: 'pm', a, b: asExpr(rest) };
      } else break;
    }
    this.depth--;
    return terms.length === 1 ? terms[0] : { k: 'add', terms };
  }

  /** Can the next token start a factor of an implicit product? */
  private startsFactor(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (t.t === 'num' || t.t === 'letter') return true;
    if (t.t === 'cmd') {
      return (
        t.text === 'pi' || t.text === 'infty' || t.text === 'frac' || t.text === 'sqrt' || t.text.endsWith('binom') ||
        FUNCTIONS.has(t.text) || GREEK.has(t.text) || TEXT_CMDS.has(t.text) || t.text === 'operatorname' ||
        t.text === 'lfloor' || t.text === 'lceil' || t.text === 'begin' || t.text === 'sum' || t.text === 'prod'
      );
    }
    return t.text === '(' || t.text === '{' || t.text === '\\{' || (t.text === '|' && this.inAbs === 0);
  }

  private parseTerm(): Answer {
    const first = this.parseUnary();
    if (!isExpr(first) && !this.isSym('*') && !this.isSym('/') && !this.isCmd('cdot', 'times', 'div')) {
      return first;
    }
    let acc: Expr[] = [asExpr(first)];
    const product = (): Expr => (acc.length === 1 ? acc[0] : { k: 'mul', factors: acc });
    for (;;) {
      if (this.isSym('*') || this.isCmd('cdot', 'times', 'ast')) {
        this.pos++;
        acc.push(asExpr(this.parseUnary()));
      } else if (this.isSym('/') || this.isCmd('div')) {
        this.pos++;
        acc = [{ k: 'div', num: product(), den: asExpr(this.parseUnary()) }];
      } else if (this.startsFactor()) {
        const isFrac = this.isCmd('frac');
        const next = asExpr(this.parsePower());
        const prev = acc[acc.length - 1];
        // A mixed number: 3\frac{1}{2} is 3 + 1/2, as written in school answers.
        if (isFrac && acc.length === 1 && prev.k === 'num' && !prev.float && next.k === 'div' && next.num.k === 'num' && next.den.k === 'num') {
          // -1\frac{2}{3} is −(1 + 2/3).
          acc = [prev.value.n < 0n ? { k: 'neg', x: { k: 'add', terms: [{ ...prev, value: { n: -prev.value.n, d: prev.value.d } }, next] } } : { k: 'add', terms: [prev, next] }];
        } else acc.push(next);
      } else break;
    }
    return product();
  }

  private parseUnary(): Answer {
    if (this.isSym('-')) {
      this.pos++;
      this.enter();
      const x = asExpr(this.parseUnary());
      this.depth--;
      // -3 stays a literal so that "-0.5" is still a decimal number.
      return x.k === 'num' ? { ...x, value: { n: -x.value.n, d: x.value.d } } : { k: 'neg', x };
    }
    if (this.isSym('+')) {
      this.pos++;
      return this.parseUnary();
    }
    return this.parsePower();
  }

  private parsePower(): Answer {
    let base = this.parsePostfix();
    if (this.isSym('^')) {
      this.pos++;
      const exp = this.parseScript();
      base = { k: 'pow', base: asExpr(base), exp };
      base = this.parsePostfixOps(base);
    } else if (this.isSym('²') || this.isSym('³')) {
      const e = this.peek()!.text === '²' ? '2' : '3';
      this.pos++;
      base = { k: 'pow', base: asExpr(base), exp: num(e) };
    }
    return base;
  }

  private parsePostfixOps(x: Answer): Answer {
    for (;;) {
      if (this.isSym('!') && !this.isSym('=', 1)) {
        this.pos++;
        x = { k: 'fn', name: 'factorial', args: [asExpr(x)] };
      } else if (this.isSym('%')) {
        this.pos++;
        x = { k: 'pct', x: asExpr(x) };
      } else return x;
    }
  }

  private parsePostfix(): Answer {
    return this.parsePostfixOps(this.parsePrimary());
  }

  /** An exponent or subscript: a braced group, or one token (a whole number, a letter, a command). */
  private parseScript(): Expr {
    if (this.isSym('{')) return asExpr(this.parseGroup('{', '}'));
    if (this.isSym('-')) {
      this.pos++;
      return { k: 'neg', x: this.parseScript() };
    }
    const t = this.peek();
    if (!t) throw new ParseError('missing exponent');
    if (t.t === 'num' || t.t === 'letter') {
      this.pos++;
      return t.t === 'num' ? num(t.text) : { k: 'sym', name: t.text.toLowerCase() };
    }
    return asExpr(this.parsePrimary());
  }

  /** A `\frac`/`\sqrt` argument: a braced group, or a single character (`\frac12`). */
  private parseArg(): Expr {
    if (this.isSym('{')) return asExpr(this.parseGroup('{', '}'));
    const t = this.peek();
    if (!t) throw new ParseError('missing argument');
    if (t.t === 'num') {
      if (t.text.length > 1) {
        this.toks[this.pos] = { t: 'num', text: t.text.slice(1) };
        return num(t.text[0]);
      }
      this.pos++;
      return num(t.text);
    }
    if (t.t === 'letter') {
      this.pos++;
      return { k: 'sym', name: t.text.toLowerCase() };
    }
    return asExpr(this.parsePrimary());
  }

  /** Content between `open` and `close`: one item is itself, several are a list. */
  private parseGroup(open: string, close: string): Answer {
    this.expectSym(open);
    this.enter();
    const items = this.parseList(new Set([close]));
    this.expectSym(close);
    this.depth--;
    if (items.length === 0) throw new ParseError('empty group');
    return items.length === 1 ? items[0] : { k: 'list', items };
  }

  /** Raw tokens of a braced group (for \text, \operatorname, \begin). */
  private rawGroup(): Token[] {
    this.expectSym('{');
    const start = this.pos;
    let depth = 1;
    while (this.pos < this.toks.length) {
      const t = this.toks[this.pos];
      if (t.t === 'sym' && t.text === '{') depth++;
      if (t.t === 'sym' && t.text === '}' && --depth === 0) {
        const inner = this.toks.slice(start, this.pos);
        this.pos++;
        return inner;
      }
      this.pos++;
    }
    throw new ParseError('unclosed {');
  }

  private parseBrackets(): Answer {
    const open = this.peek()!.text;
    this.pos++;
    this.enter();
    const items = this.parseList(new Set([')', ']']));
    const close = this.peek();
    if (!close) throw new ParseError(`unclosed ${open}`);
    this.pos++;
    this.depth--;
    if (items.length === 1) {
      if (open === '(' && close.text === ')') return items[0];
      if (open === '[' && close.text === ']') return items[0];
      throw new ParseError('mismatched brackets');
    }
    if (items.length === 2) return { k: 'interval', lo: items[0], hi: items[1], loOpen: open === '(', hiOpen: close.text === ')' };
    if (items.length === 0) throw new ParseError('empty brackets');
    return { k: 'tuple', items };
  }

  private parseFunction(name: string): Expr {
    let base: Expr | undefined;
    if (name === 'log' && this.isSym('_')) {
      this.pos++;
      base = this.parseScript();
    }
    let power: Expr | undefined;
    if (this.isSym('^')) {
      this.pos++;
      power = this.parseScript();
    }
    let arg: Expr;
    if (this.isSym('(')) {
      const inner = this.parseBrackets();
      if (inner.k === 'interval' || inner.k === 'tuple') {
        const items = inner.k === 'interval' ? [inner.lo, inner.hi] : inner.items;
        const call: Expr = { k: 'fn', name, args: items.map(asExpr) };
        return power ? { k: 'pow', base: call, exp: power } : call;
      }
      arg = asExpr(inner);
    } else {
      arg = asExpr(this.parsePower());
    }
    const args = base ? [arg, base] : [arg];
    const call: Expr = { k: 'fn', name: name === 'lg' ? 'log' : name, args };
    return power ? { k: 'pow', base: call, exp: power } : call;
  }

  /** `\sum_{k=1}^{n} body`: the body is one term (a product), as in `\sum_{k=1}^{n} k^2 + 1`. */
  private parseBigOperator(op: 'sum' | 'prod'): Expr {
    this.expectSym('_');
    const lower = this.isSym('{') ? this.rawGroup() : [];
    const eq = lower.findIndex((t) => t.t === 'sym' && t.text === '=');
    if (eq !== 1 || lower[0].t !== 'letter') throw new ParseError(`\\${op} needs a lower limit k=…`);
    const lo = new Parser(lower.slice(2));
    lo.depth = this.depth + 1;
    const loExpr = asExpr(lo.parseAll());
    this.expectSym('^');
    const hi = this.parseScript();
    const body = asExpr(this.parseTerm());
    return { k: 'bigop', op, v: lower[0].text.toLowerCase(), lo: loExpr, hi, body };
  }

  private parseMatrix(): Answer {
    const env = this.rawGroup().map((t) => t.text).join('');
    if (!MATRIX_ENVS.has(env)) throw new ParseError(`environment ${env}`);
    if (env === 'array' && this.isSym('{')) this.rawGroup(); // column spec
    const rows: Answer[][] = [[]];
    for (;;) {
      if (this.isCmd('end')) {
        this.pos++;
        this.rawGroup();
        break;
      }
      if (this.pos >= this.toks.length) throw new ParseError('unclosed matrix');
      rows[rows.length - 1].push(this.parseUnion());
      if (this.isSym('&')) this.pos++;
      else if (this.isSym('\\\\')) {
        this.pos++;
        rows.push([]);
      } else if (!this.isCmd('end')) throw new ParseError('bad matrix');
    }
    if (rows[rows.length - 1].length === 0) rows.pop();
    if (rows.length === 0 || rows.some((r) => r.length !== rows[0].length)) throw new ParseError('ragged matrix');
    return { k: 'matrix', rows };
  }

  private parseText(raw: Token[]): Answer {
    if (raw.length === 0) throw new ParseError('empty text');
    if (raw.every((t) => t.t === 'letter')) return { k: 'text', text: raw.map((t) => t.text).join('').toLowerCase() };
    // Mixed content (`\text{(B)}`, `\mathbf{v}`): parse what is inside.
    const inner = new Parser(raw);
    inner.depth = this.depth + 1;
    return inner.parseAll();
  }

  private parsePrimary(): Answer {
    this.enter();
    try {
      return this.primary();
    } finally {
      this.depth--;
    }
  }

  private primary(): Answer {
    const t = this.peek();
    if (!t) throw new ParseError('unexpected end');
    if (t.t === 'num') {
      this.pos++;
      return num(t.text);
    }
    if (t.t === 'letter') {
      this.pos++;
      let name = t.text;
      if (this.isSym('_')) {
        this.pos++;
        const sub = this.isSym('{') ? this.rawGroup() : [this.toks[this.pos++]];
        if (sub.some((s) => s === undefined)) throw new ParseError('missing subscript');
        name += `_${sub.map((s) => s.text).join('')}`;
      }
      return { k: 'sym', name: name.length === 1 ? name.toLowerCase() : name };
    }
    if (t.t === 'sym') {
      switch (t.text) {
        case '(':
        case '[':
          return this.parseBrackets();
        case '{':
          return this.parseGroup('{', '}');
        case '\\{': {
          this.pos++;
          const items = this.parseList(new Set(['\\}']));
          this.expectSym('\\}');
          return { k: 'set', items };
        }
        case '|': {
          this.pos++;
          this.inAbs++;
          const x = asExpr(this.parseSum());
          this.inAbs--;
          this.expectSym('|');
          return { k: 'fn', name: 'abs', args: [x] };
        }
        default:
          throw new ParseError(`unexpected ${t.text}`);
      }
    }
    // A command.
    this.pos++;
    const name = t.text;
    if (name === 'pi') return { k: 'const', name: 'pi' };
    if (name === 'infty') return { k: 'const', name: 'inf' };
    if (name === 'emptyset' || name === 'varnothing') return { k: 'set', items: [] };
    if (name === 'frac') {
      const n = this.parseArg();
      return { k: 'div', num: n, den: this.parseArg() };
    }
    if (name.endsWith('binom')) {
      const n = this.parseArg();
      return { k: 'fn', name: 'binom', args: [n, this.parseArg()] };
    }
    if (name === 'sqrt') {
      if (this.isSym('[')) {
        this.pos++;
        const index = asExpr(this.parseSum());
        this.expectSym(']');
        return { k: 'pow', base: this.parseArg(), exp: { k: 'div', num: num('1'), den: index } };
      }
      return { k: 'fn', name: 'sqrt', args: [this.parseArg()] };
    }
    if (FUNCTIONS.has(name)) return this.parseFunction(name);
    if (name === 'operatorname') {
      const fname = this.rawGroup().map((x) => x.text).join('');
      return this.parseFunction(fname);
    }
    if (GREEK.has(name)) return { k: 'sym', name };
    if (TEXT_CMDS.has(name)) {
      const raw = this.rawGroup();
      // `\mathrm{e}`: Euler's number set upright, as ISO typesetting asks.
      if ((name === 'mathrm' || name === 'operatorname') && raw.length === 1 && raw[0].text === 'e') return { k: 'sym', name: 'e' };
      // `\mathbb{R}`: the real line, the interval (-∞, ∞).
      if (name === 'mathbb' && raw.length === 1 && raw[0].text === 'R') {
        const inf: Expr = { k: 'const', name: 'inf' };
        return { k: 'interval', lo: { k: 'neg', x: inf }, hi: inf, loOpen: true, hiOpen: true };
      }
      return this.parseText(raw);
    }
    if (name === 'sum' || name === 'prod') return this.parseBigOperator(name);
    if (name === 'lfloor' || name === 'lceil') {
      const x = asExpr(this.parseSum());
      if (!this.isCmd(name === 'lfloor' ? 'rfloor' : 'rceil')) throw new ParseError(`unclosed ${name}`);
      this.pos++;
      return { k: 'fn', name: name === 'lfloor' ? 'floor' : 'ceil', args: [x] };
    }
    if (name === 'begin') return this.parseMatrix();
    throw new ParseError(`unknown command \\${name}`);
  }
}

/** Top-level `=` signs of a token list (outside any brackets or braces). */
function topLevelEquals(toks: Token[]): number[] {
  const at: number[] = [];
  let depth = 0;
  toks.forEach((t, i) => {
    if (t.t !== 'sym') return;
    if ('([{'.includes(t.text) || t.text === '\\{') depth++;
    else if (')]}'.includes(t.text) || t.text === '\\}') depth--;
    else if (t.text === '=' && depth === 0) at.push(i);
  });
  return at;
}

/**
 * Parses a normalised answer. A chain of equalities whose middle we cannot read (an unknown
 * command: `x = \foo{3} = 5`) is read by its two ends, since an equation is graded by its last
 * side anyway.
 */
export function parseLatex(normalised: string): Answer {
  const toks = tokenize(normalised);
  try {
    return new Parser(toks).parseAll();
  } catch (e) {
    const eqs = topLevelEquals(toks);
    if (!(e instanceof ParseError) || eqs.length === 0) throw e;
    const last = new Parser(toks.slice(eqs[eqs.length - 1] + 1)).parseAll();
    let first: Answer;
    try {
      first = new Parser(toks.slice(0, eqs[0])).parseAll();
    } catch {
      return last;
    }
    return { k: 'rel', ops: ['='], items: [first, last] };
  }
}
