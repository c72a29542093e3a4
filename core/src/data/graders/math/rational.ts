/** Exact rationals over BigInt, so that 1/3 + 1/6 = 1/2 exactly and big integers stay exact. */
export interface Rational {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint, d = 1n): Rational {
  if (d === 0n) throw new RangeError('division by zero');
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

/** "12", "-3.25", ".5" → exact rational; undefined for anything else. */
export function parseDecimal(text: string): Rational | undefined {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && !m[3])) return undefined;
  const frac = m[3] ?? '';
  const n = BigInt((m[2] || '0') + frac) * (m[1] ? -1n : 1n);
  return rat(n, 10n ** BigInt(frac.length));
}

export const add = (a: Rational, b: Rational): Rational => rat(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Rational, b: Rational): Rational => rat(a.n * b.d - b.n * a.d, a.d * b.d);
export const mul = (a: Rational, b: Rational): Rational => rat(a.n * b.n, a.d * b.d);
export const div = (a: Rational, b: Rational): Rational => rat(a.n * b.d, a.d * b.n);
export const neg = (a: Rational): Rational => ({ n: -a.n, d: a.d });
export const isZero = (a: Rational): boolean => a.n === 0n;
export const isInteger = (a: Rational): boolean => a.d === 1n;
export const equal = (a: Rational, b: Rational): boolean => a.n === b.n && a.d === b.d;

/** Bits of the larger of numerator and denominator, to keep exact arithmetic bounded. */
export function bitSize(a: Rational): number {
  const abs = a.n < 0n ? -a.n : a.n;
  return Math.max(abs.toString(16).length, a.d.toString(16).length) * 4;
}

/** a^k for an integer k, or undefined when the result would be too large to keep exact. */
export function powInt(a: Rational, k: bigint, maxBits = 4096): Rational | undefined {
  if (k === 0n) return { n: 1n, d: 1n };
  if (a.n === 0n) return k > 0n ? a : undefined;
  const e = k < 0n ? -k : k;
  if (Number(e) * bitSize(a) > maxBits) {
    // 1 and -1 stay small whatever the exponent.
    if (a.d === 1n && (a.n === 1n || a.n === -1n)) return { n: a.n === -1n && e % 2n === 1n ? -1n : 1n, d: 1n };
    return undefined;
  }
  const r = { n: a.n ** e, d: a.d ** e };
  return k < 0n ? rat(r.d, r.n) : r;
}

export function toNumber(a: Rational): number {
  const direct = Number(a.n) / Number(a.d);
  if (Number.isFinite(direct) && direct !== 0) return direct;
  if (a.n === 0n) return 0;
  // Both huge or the quotient underflows: scale to keep 17 significant digits.
  const shift = BigInt(Math.max(0, a.d.toString().length - a.n.toString().length + 20));
  return Number((a.n * 10n ** shift) / a.d) / 10 ** Number(shift);
}

/** Rounds to `places` decimal places, ties to even (as sympy's Float.round: 0.125 → 0.12), exactly. */
export function roundDecimal(a: Rational, places: number): Rational {
  const scale = 10n ** BigInt(places);
  const scaled = (a.n < 0n ? -a.n : a.n) * scale;
  let q = scaled / a.d;
  const twiceRest = 2n * (scaled - q * a.d);
  if (twiceRest > a.d || (twiceRest === a.d && q % 2n === 1n)) q++;
  return rat(a.n < 0n ? -q : q, scale);
}
