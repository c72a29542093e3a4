/**
 * Text-level clean-up of a LaTeX answer before parsing: presentation commands, dollar signs,
 * degree marks, thousands separators, trailing units and words that stand for symbols.
 */
import { lastBoxed } from '../lastBoxed.ts';

/** Unit words dropped after a number (plural forms are matched too). Lower case. */
const UNITS = [
  'mm', 'cm', 'm', 'km', 'meter', 'metre', 'kilometer', 'kilometre', 'centimeter', 'centimetre', 'millimeter',
  'in', 'inch', 'inche', 'ft', 'feet', 'foot', 'yd', 'yard', 'mi', 'mile', 'mph', 'kmh', 'kph',
  'mg', 'g', 'kg', 'gram', 'kilogram', 'lb', 'lbs', 'pound', 'oz', 'ounce', 'ton', 'tonne',
  'ml', 'l', 'liter', 'litre', 'gallon', 'gal', 'cup', 'quart', 'pint',
  's', 'sec', 'second', 'min', 'minute', 'h', 'hr', 'hour', 'day', 'week', 'month', 'year', 'yr',
  'degree', 'deg', 'radian', 'rad',
  'dollar', 'cent', 'euro', 'unit', 'square unit', 'cubic unit', 'sq unit', 'sq', 'square', 'cubic',
  'people', 'person', 'student', 'apple', 'book', 'page', 'point', 'way', 'time', 'item', 'marble', 'ball', 'coin', 'car', 'cookie', 'candy', 'candie', 'egg', 'mark', 'vote', 'seat', 'tile',
  'am', 'pm', 'a.m.', 'p.m.', 'percentage point',
];
const UNIT_RE = new RegExp(
  `([0-9}).])\\s*(?:(?:square|sq\\.?|cubic|cu\\.?)\\s+)?(?:${UNITS.sort((a, b) => b.length - a.length).map((u) => u.replace(/[.]/g, '\\.')).join('|')})(?:e?s)?(?:\\^\\{?[23]\\}?|²|³)?\\s*\\.?$`,
  'i',
);

// `\quad` glued to what follows (`\quadx_{2}`) is still a space: no other command starts with quad.
const SPACING = /(?<!\\)\\[,;:!> ]|\\q?quad|~/g;
const SIZING = /\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|big|Big|bigg|Bigg|middle|mleft|mright)(?![a-zA-Z])\s*(\\[{}|]|\\[a-z]+|[()[\]|.])?/g;
const PRESENTATION = /\\(?:displaystyle|textstyle|scriptstyle|limits|nolimits|boldsymbol|bm|mathit|mathnormal)(?![a-zA-Z])/g;
const FRAC_VARIANTS = /\\[dtc]frac(?![a-zA-Z])/g;
const DEGREES = /\^\s*\{?\s*\\circ\s*\}?|\^\s*\{\s*\\text\{\s*o\s*\}\s*\}|°|\\circ(?![a-zA-Z])|\\degree(?![a-zA-Z])/g;
const TRAILING_TEXT = /\\(?:text|textrm|textnormal|mbox|mathrm|textit|textbf)\s*\{[^{}]*\}\s*(?:\^\s*\{?\s*[23]\s*\}?)?\s*$/;
const LEAD_IN = /^\\text\s*\{[^{}]*(?:\bis|\bare|:|=)\s*\}\s*(?=\S)/i;
// Also `or` written without spaces between two answers: `(3,5)or(5,3)`, `W(x)=1orW(x)=-1`.
const CONNECTIVE = /(?:,?\s*\\text\{\s*(?:and|or)\s*\}\s*|,?\s+(?:and|or)\s+|(?<=[)\]}])\s*or\s*(?=[([{])|(?<=\d)or(?=[A-Z]))/g;

function keepSizedDelimiter(_m: string, delim: string | undefined): string {
  if (!delim || delim === '.') return '';
  return delim;
}

/** Everything we strip or rewrite before parsing. Returns the cleaned LaTeX. */
/** `\\frac`, `\\left(`: LaTeX escaped twice (a JSON or Python string written out once too often). */
function undoDoubleEscape(s: string): string {
  if (!/\\\\[a-zA-Z]/.test(s)) return s;
  return s.replace(/\\\\\\\\/g, '\u0000').replace(/(?<!\\)\\\\(?=[a-zA-Z{}])/g, '\\').replace(/\u0000/g, '\\\\');
}

/**
 * Digit groups joined by a thousands separator, in the spellings LaTeX answers use: `,\!` `\!,\!`
 * `{,}` and spacing (`\,` `\ ` `\;` `~`, a plain space) before groups of exactly three digits.
 * The whole answer must be such a number (`1, 234` is a list, but `1,\!234` is not).
 */
const SEPARATED_NUMBER = /^-?\d{1,3}(?:(?:,|\s|(?:\\[,; ]|~)\s?)\d{3})+(?:\.\d+)?$/;
const LATEX_THOUSANDS = /(\d)(?:\\!)?(?:,\\!|\{,\})(?:\\!)?\s*(?=\d{3}(?!\d))/g;

function joinThousands(s: string): string {
  // A decimal comma where it can be neither a list nor thousands: `0,111` (math-verify reads it so too).
  if (/^-?0,\d+$/.test(s)) return s.replace(',', '.');
  // `,\!` and `{,}` only ever separate thousands, wherever they stand (`16,\!386.20`, `(1,\!000, 2)`).
  s = s.replace(LATEX_THOUSANDS, '$1');
  return SEPARATED_NUMBER.test(s) ? s.replace(/[^\d.-]/g, '') : s;
}

export function normalizeLatex(input: string): string {
  let s = input.trim().replace(/[ \t\r\n]+/g, ' ');
  if (s.includes('\\boxed') || s.includes('\\fbox')) s = lastBoxed(s) ?? s;
  s = joinThousands(undoDoubleEscape(s));
  // A whole answer in `\(…\)` or `\[…\]` (as datasets write golds): the math inside.
  s = s.replace(/^\\\(([\s\S]*)\\\)\.?$|^\\\[([\s\S]*)\\\]\.?$/, (_m, a: string | undefined, b: string | undefined) => (a ?? b ?? '').trim());
  s = s
    .replace(/\\\$|\$/g, '')
    .replace(/\\(?:dots|ldots|cdots|dotsc|dotsb)(?![a-zA-Z])/g, '')
    .replace(SIZING, keepSizedDelimiter)
    .replace(PRESENTATION, '')
    .replace(FRAC_VARIANTS, '\\frac')
    .replace(/\\(?:lbrace)(?![a-zA-Z])/g, '\\{')
    .replace(/\\(?:rbrace)(?![a-zA-Z])/g, '\\}')
    .replace(/\\(?:vert|lvert|rvert)(?![a-zA-Z])/g, '|')
    .replace(DEGREES, '')
    .replace(/\{,\}/g, '')
    .replace(/\\%|％/g, '%')
    .replace(/\\text\{\s*(?:percent|percentage|pct)\s*\}|\s*\b(?:percent|percentage|pct)\b/gi, '%')
    .replace(/[\n\t\r]/g, ' ')
    .replace(SPACING, ' ')
    .replace(/−|–/g, '-')
    .trim();
  if (!/matrix|array/.test(s)) s = s.replace(/\\\\/g, ' ');

  // Trailing unit text (`5\text{ cm}^2`) and unit words (`12 feet`), as long as something is left.
  for (let i = 0; i < 2; i++) {
    const t = s.replace(TRAILING_TEXT, '').trim();
    if (t && t !== s && /[0-9a-zA-Z})]\s*$/.test(t)) s = t;
    const u = s.replace(UNIT_RE, '$1').trim();
    if (u && u !== s) s = u;
  }
  // Leading prose that announces the answer: `\text{The answer is } 7`.
  s = s.replace(LEAD_IN, '');
  // A number and its unit inside one \text{}: `\text{3 apples}` is 3 (but `\text{2 and 3}` stays).
  s = s.replace(/^\\text\s*\{\s*(-?\d[\d.,]*)\s+(?!(?:and|or)\b)[a-zA-Z]+(?:\s+(?!(?:and|or)\b)[a-zA-Z]+)?\s*\}$/, '$1');
  s = s.replace(CONNECTIVE, ',');
  s = s.replace(/\binfinity\b|(?<!\\)\binf\b/g, '\\infty');
  if (/^-?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, '');
  if (s.startsWith('.')) s = `0${s}`;
  return s.trim();
}
