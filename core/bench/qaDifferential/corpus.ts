/**
 * The generated corpus of the QA differential (../qaDifferential.ts): gold answers of every column
 * type GEM datasets carry (text, with articles, punctuation and non-ASCII letters; integers; floats,
 * integral or not; booleans; lists of them), built from parts with a seeded generator, and replies
 * made by perturbing each gold: the same answer in other case, with an article, punctuation, other
 * whitespace (Python's set and JS's differ), a byte-order mark, decomposed Unicode, other number
 * forms, yes/no for booleans, wrong and partial answers, missing, unclosed and repeated tags, and
 * `\boxed{}` forms for the RuleTaker envs.
 */
import { Rng } from '../../src/core/rng.ts';

/** A gold as the dataset column holds it; `type` keeps int and float apart for GEM's side. */
export type TypedGold =
  | { type: 'str'; value: string }
  | { type: 'int'; value: number }
  | { type: 'float'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'list'; value: TypedGold[] };

export interface QaCase {
  id: number;
  /** `<answer>` tags (qa:HotpotQA) or `\boxed{}` (logic:RuleTaker-d0). */
  boxed: boolean;
  question: string;
  gold: TypedGold;
  /** The gold's type and the perturbation, e.g. `str/article_added`. */
  kind: string;
  reply: string;
  /** The verdict a grader that reads the answer by its meaning gives. */
  intended: boolean;
}

const ASCII_WORDS = ['river', 'castle', 'Lincoln', 'Mercury', 'Johnson', 'harbor', 'Kansas', 'Everest', 'piano', 'Yukon', 'Napoleon', 'tiger'];
const UNICODE_WORDS = ['São Paulo', 'Zürich', 'Ærøskøbing', 'Ñandú', 'Ångström', 'Đorđević', 'Straße', 'Ελλάδα', 'Москва', '北京', 'ãe', 'Dvořák', 'Côte', 'İzmir', 'Łódź'];
const PREFIXES = ['', '', 'The ', 'A ', 'An ', 'the '];
const SUFFIXES = ['', '', '', '.', '!', ' Jr.', "'s", '-on-Sea', ' (band)'];
const SPACES = ['\u0085', '\u001c', '\u001f', '\u00a0', '\u3000', '\u2028', '\t', '\u200a'];

/** The text GEM compares for a gold: Python's str() of the value. */
export function pythonStr(g: TypedGold): string[] {
  switch (g.type) {
    case 'str':
      return [g.value];
    case 'int':
      return [String(g.value)];
    case 'float':
      return [Number.isInteger(g.value) ? `${g.value}.0` : String(g.value)];
    case 'bool':
      return [g.value ? 'True' : 'False'];
    case 'list':
      return g.value.flatMap(pythonStr);
  }
}

/** The gold as gem-ts's env receives it from a dataset (JS values: 100.0 and 100 are one number). */
export function jsValue(g: TypedGold): unknown {
  return g.type === 'list' ? g.value.map(jsValue) : g.value;
}

function textGold(rng: Rng): string {
  const core = rng.bool(0.5) ? rng.choice(UNICODE_WORDS) : rng.choice(ASCII_WORDS);
  const second = rng.bool(0.4) ? ` ${rng.choice(rng.bool() ? ASCII_WORDS : UNICODE_WORDS)}` : '';
  return `${rng.choice(PREFIXES)}${core}${second}${rng.choice(SUFFIXES)}`;
}

const tag = (answer: string) => `<think>Let me recall.</think>\n<answer>${answer}</answer>`;
const boxedReply = (answer: string) => `Reasoning over the rules… so the statement is \\boxed{${answer}}.`;

export function generateQaCorpus({ seed, goldsPerType }: { seed: number; goldsPerType: number }): QaCase[] {
  const rng = new Rng(seed);
  const cases: QaCase[] = [];
  const add = (boxed: boolean, gold: TypedGold, kind: string, reply: string, intended: boolean) =>
    cases.push({ id: cases.length, boxed, question: `Question ${cases.length}?`, gold, kind: `${gold.type === 'float' && !Number.isInteger(gold.value) ? 'float_frac' : gold.type}/${kind}`, reply, intended });
  const texts = Array.from({ length: goldsPerType * 2 }, () => textGold(rng));

  for (let i = 0; i < goldsPerType * 2; i++) {
    const text = texts[i];
    const g: TypedGold = { type: 'str', value: text };
    const words = text.split(' ');
    add(false, g, 'exact', tag(text), true);
    add(false, g, 'upper_case', tag(text.toUpperCase()), text.toUpperCase().toLowerCase() === text.toLowerCase());
    add(false, g, 'lower_case', tag(text.toLowerCase()), true);
    add(false, g, 'article_added', tag(`the ${text}`), true);
    add(false, g, 'punctuation_added', tag(`${text}.`), true);
    add(false, g, 'extra_spaces', tag(`  ${words.join('   ')}  `), true);
    add(false, g, 'python_space_inside', tag(words.join(rng.choice(SPACES))), true);
    add(false, g, 'bom', tag(`\uFEFF${text}`), true);
    if (text.normalize('NFD') !== text) add(false, g, 'decomposed', tag(text.normalize('NFD')), true);
    const other = texts[(i + 1) % texts.length];
    add(false, g, 'wrong', tag(other), other.toLowerCase() === text.toLowerCase());
    if (words.length > 1) add(false, g, 'partial', tag(words.slice(0, -1).join(' ')), false);
    add(false, g, 'article_glued', tag(`a${text}`), false);
    add(false, g, 'no_tag', `The answer is ${text}.`, false);
    add(false, g, 'unclosed_tag', `<answer>${text}`, false);
    add(false, g, 'last_tag_right', `<answer>${other}</answer> no, <answer>${text}</answer>`, true);
    add(false, g, 'last_tag_wrong', `<answer>${text}</answer> no, <answer>${other}</answer>`, other.toLowerCase() === text.toLowerCase());
  }

  for (let i = 0; i < goldsPerType; i++) {
    const n = rng.int(0, 3) === 0 ? -rng.int(1, 999) : rng.int(0, 5000);
    const g: TypedGold = { type: 'int', value: n };
    add(false, g, 'exact', tag(String(n)), true);
    add(false, g, 'float_form', tag(`${n}.0`), true);
    add(false, g, 'exponent', tag(n === 0 ? '0e0' : `${n / 10}e1`), true);
    add(false, g, 'dollar', tag(`$${n}`), true);
    add(false, g, 'sentence_period', tag(`${n}.`), true);
    add(false, g, 'times_ten', tag(String(n * 10)), n === 0);
    add(false, g, 'off_by_one', tag(String(n + 1)), false);
    if (Math.abs(n) >= 1000) add(false, g, 'thousands_comma', tag(n.toLocaleString('en-US')), true);
  }

  for (let i = 0; i < goldsPerType; i++) {
    const v = rng.int(1, 3000);
    const g: TypedGold = { type: 'float', value: v };
    add(false, g, 'int_form', tag(String(v)), true);
    add(false, g, 'float_form', tag(`${v}.0`), true);
    add(false, g, 'times_ten', tag(String(v * 10)), false);
    add(false, g, 'off_by_one', tag(String(v + 1)), false);
    const f = rng.int(1, 999) / rng.choice([4, 8, 10, 100]);
    const h: TypedGold = { type: 'float', value: Number.isInteger(f) ? f + 0.5 : f };
    add(false, h, 'exact', tag(String(h.value)), true);
    add(false, h, 'digits_only', tag(String(h.value).replace('.', '')), false);
    add(false, h, 'trailing_zero', tag(`${h.value}0`), true);
    add(false, h, 'rounded', tag(String(Math.round(h.value as number))), false);
  }

  for (let i = 0; i < goldsPerType; i++) {
    const v = rng.bool();
    const g: TypedGold = { type: 'bool', value: v };
    const [yes, no] = v ? ['yes', 'no'] : ['no', 'yes'];
    add(false, g, 'python_str', tag(v ? 'True' : 'False'), true);
    add(false, g, 'lower_case', tag(v ? 'true' : 'false'), true);
    add(false, g, 'yes_no', tag(rng.bool() ? yes : yes.toUpperCase()), true);
    add(false, g, 'opposite', tag(v ? 'False' : 'True'), false);
    add(false, g, 'opposite_yes_no', tag(no), false);
    add(true, g, 'boxed', boxedReply(v ? 'True' : 'False'), true);
    add(true, g, 'boxed_opposite', boxedReply(v ? 'False' : 'True'), false);
    add(true, g, 'boxed_space', `so \\boxed {${v ? 'True' : 'False'}}`, true);
    add(true, g, 'fbox', `so \\fbox{${v ? 'True' : 'False'}}`, true);
    add(true, g, 'no_box', `The statement is ${v ? 'True' : 'False'}.`, false);
  }

  for (let i = 0; i < goldsPerType; i++) {
    const a = texts[i];
    const n = rng.int(1, 99);
    const g: TypedGold = { type: 'list', value: [{ type: 'str', value: a }, { type: 'int', value: n }, { type: 'float', value: n + 0.25 }] };
    add(false, g, 'first', tag(a), true);
    add(false, g, 'int_member', tag(String(n)), true);
    add(false, g, 'float_member', tag(String(n + 0.25)), true);
    add(false, g, 'none', tag(texts[(i + 3) % texts.length] + '?'), false);
    const s: TypedGold = { type: 'str', value: ['True', 'False', 'A', 'B', 'an'][i % 5] };
    add(true, s, 'boxed_string_label', boxedReply(s.value.toLowerCase()), true);
  }
  return cases;
}
