/**
 * The generated corpus of the code differential (../codeDifferential.ts): programming problems, each
 * an instance of a family with its own parameters and seeded test inputs (small, medium and, for half
 * of them, a max-size test whose output is over 64 KiB), and candidate replies made by perturbing the
 * family's reference solution.
 *
 * Expected outputs come from an oracle written here in TypeScript, apart from the Python reference
 * solutions, so a reference solution scoring 1 says both that it is right and that the grader ran it
 * right. Replies: the reference solution in many I/O idioms (print, join, sys.stdout.write, atexit
 * flush, sys.stdin.buffer, os.fstat reads, input() loops, sys.exit(0), a threading main, …), output
 * perturbations (wrong answers and format variants, whose intended verdict the oracle decides),
 * runtime errors, endless loops, fence variants, several code blocks, and no code at all.
 */
import { Rng } from '../../src/core/rng.ts';
import { pyStrip } from '../../src/data/graders/qa/pythonText.ts';

export interface CodeProblem {
  id: string;
  family: string;
  problem: string;
  tests: { inputs: string[]; outputs: string[] };
  /** Some expected output is over 64 KiB. */
  largeOutput: boolean;
}

export interface CodeReply {
  id: number;
  /** Index of the problem in the corpus. */
  problem: number;
  kind: 'correct' | 'wrong' | 'runtime' | 'timeout' | 'format' | 'fence' | 'multi' | 'no_code';
  variant: string;
  text: string;
  /** The reward a correct grader gives (1, 0 or −0.1 for no code block). */
  intended: number;
}

type Scale = 'small' | 'medium' | 'large';

interface Family {
  name: string;
  statement: (p: Params) => string;
  input: (rng: Rng, scale: Scale, p: Params) => string;
  /** The expected output lines. */
  oracle: (input: string, p: Params) => string[];
  /** Python: `def solve(data: str) -> list[str]` over the whole stdin. */
  solve: (p: Params) => string;
  params?: (rng: Rng) => Params;
}

type Params = Record<string, string | number>;

const ints = (s: string) => s.trim().split(/\s+/).map(Number);
const big = (s: string) => s.trim().split(/\s+/).map(BigInt);
const lines = (s: string) => s.split('\n');
const sizeOf = (scale: Scale, small: number, medium: number, large: number) => (scale === 'small' ? small : scale === 'medium' ? medium : large);
const rangeInts = (rng: Rng, n: number, lo: number, hi: number) => Array.from({ length: n }, () => rng.int(lo, hi));
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));

const FAMILIES: Family[] = [
  {
    name: 'pair_sums',
    statement: () => 'The first line holds T. Each of the next T lines holds two integers a and b (|a|, |b| ≤ 10^12). Print a + b for each line.',
    input: (rng, scale) => {
      const t = sizeOf(scale, rng.int(1, 4), rng.int(50, 200), 9000);
      const rows = Array.from({ length: t }, () => `${rng.int(-1e12, 1e12)} ${rng.int(-1e12, 1e12)}`);
      return `${t}\n${rows.join('\n')}\n`;
    },
    oracle: (input) => lines(input.trim()).slice(1).map((l) => String(big(l).reduce((a, b) => a + b))),
    solve: () => 'def solve(data):\n    it = data.split()\n    t = int(it[0])\n    return [str(int(it[1 + 2 * i]) + int(it[2 + 2 * i])) for i in range(t)]',
  },
  {
    name: 'count_up',
    statement: (p) => `Read n and print the n integers starting at ${p.start}, one per line.`,
    params: (rng) => ({ start: rng.int(0, 3) }),
    input: (rng, scale) => `${sizeOf(scale, rng.int(1, 9), rng.int(100, 900), 24000)}\n`,
    oracle: (input, p) => Array.from({ length: Number(input.trim()) }, (_, i) => String(i + Number(p.start))),
    solve: (p) => `def solve(data):\n    n = int(data)\n    return [str(i) for i in range(${p.start}, n + ${p.start})]`,
  },
  {
    name: 'sort_list',
    statement: (p) => `Read n, then n integers. Print them sorted in ${p.order} order on one line, separated by spaces.`,
    params: (rng) => ({ order: rng.choice(['ascending', 'descending']) }),
    input: (rng, scale) => {
      const n = sizeOf(scale, rng.int(1, 6), rng.int(40, 300), 16000);
      return `${n}\n${rangeInts(rng, n, -1e6, 1e6).join(' ')}\n`;
    },
    oracle: (input, p) => {
      const xs = ints(input).slice(1).sort((a, b) => (p.order === 'ascending' ? a - b : b - a));
      return [xs.join(' ')];
    },
    solve: (p) => `def solve(data):\n    xs = list(map(int, data.split()))[1:]\n    xs.sort(reverse=${p.order === 'descending' ? 'True' : 'False'})\n    return [" ".join(map(str, xs))]`,
  },
  {
    name: 'reverse_words',
    statement: () => 'The first line holds T; each of the next T lines is a sentence of lower-case words separated by single spaces. Print each sentence with its words in reverse order.',
    input: (rng, scale) => {
      const t = sizeOf(scale, rng.int(1, 3), rng.int(20, 80), 6000);
      const word = () => Array.from({ length: rng.int(1, 7) }, () => String.fromCharCode(97 + rng.int(0, 25))).join('');
      const rows = Array.from({ length: t }, () => Array.from({ length: rng.int(1, 6) }, word).join(' '));
      return `${t}\n${rows.join('\n')}\n`;
    },
    oracle: (input) => lines(input.trim()).slice(1).map((l) => l.split(' ').reverse().join(' ')),
    solve: () => 'def solve(data):\n    rows = data.split("\\n")\n    t = int(rows[0])\n    return [" ".join(rows[1 + i].split()[::-1]) for i in range(t)]',
  },
  {
    name: 'prefix_sums',
    statement: () => 'Read n, then n integers a_1 … a_n. Print the n prefix sums a_1, a_1 + a_2, … on one line, separated by spaces.',
    input: (rng, scale) => {
      const n = sizeOf(scale, rng.int(1, 6), rng.int(50, 400), 12000);
      return `${n}\n${rangeInts(rng, n, -1e9, 1e9).join(' ')}\n`;
    },
    oracle: (input) => {
      let s = 0n;
      return [big(input).slice(1).map((x) => String((s += x))).join(' ')];
    },
    solve: () => 'def solve(data):\n    xs = list(map(int, data.split()))[1:]\n    out, s = [], 0\n    for x in xs:\n        s += x\n        out.append(str(s))\n    return [" ".join(out)]',
  },
  {
    name: 'gcd_pairs',
    statement: () => 'The first line holds T; each of the next T lines holds two positive integers. Print the greatest common divisor of each pair.',
    input: (rng, scale) => {
      const t = sizeOf(scale, rng.int(1, 4), rng.int(30, 200), 11000);
      const rows = Array.from({ length: t }, () => {
        const g = rng.int(1, 1000);
        return `${g * rng.int(1, 1e6)} ${g * rng.int(1, 1e6)}`;
      });
      return `${t}\n${rows.join('\n')}\n`;
    },
    oracle: (input) => lines(input.trim()).slice(1).map((l) => {
      const [a, b] = big(l);
      return String(gcd(a, b));
    }),
    solve: () => 'def solve(data):\n    from math import gcd\n    it = list(map(int, data.split()))\n    return [str(gcd(it[1 + 2 * i], it[2 + 2 * i])) for i in range(it[0])]',
  },
  {
    name: 'to_base',
    statement: (p) => `The first line holds T; each of the next T lines holds a non-negative integer. Print each in base ${p.base} (digits 0-9 then a-z, no prefix).`,
    params: (rng) => ({ base: rng.choice([2, 3, 7, 16]) }),
    input: (rng, scale) => {
      const t = sizeOf(scale, rng.int(1, 4), rng.int(30, 200), 5000);
      return `${t}\n${rangeInts(rng, t, 0, 2 ** 31).join('\n')}\n`;
    },
    oracle: (input, p) => ints(input).slice(1).map((x) => x.toString(Number(p.base))),
    solve: (p) =>
      `def solve(data):\n    digits = "0123456789abcdefghijklmnopqrstuvwxyz"\n    def conv(x):\n        if x == 0:\n            return "0"\n        s = []\n        while x:\n            x, r = divmod(x, ${p.base})\n            s.append(digits[r])\n        return "".join(reversed(s))\n    xs = list(map(int, data.split()))\n    return [conv(x) for x in xs[1:]]`,
  },
  {
    name: 'char_counts',
    statement: () => 'Read one line of lower-case letters. For each letter that occurs, in alphabetical order, print the letter and how many times it occurs, separated by a space.',
    input: (rng, scale) => {
      const n = sizeOf(scale, rng.int(1, 8), rng.int(50, 500), 20000);
      const alphabet = rng.int(2, 26);
      return `${Array.from({ length: n }, () => String.fromCharCode(97 + rng.int(0, alphabet - 1))).join('')}\n`;
    },
    oracle: (input) => {
      const counts = new Map<string, number>();
      for (const c of input.trim()) counts.set(c, (counts.get(c) ?? 0) + 1);
      return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, k]) => `${c} ${k}`);
    },
    solve: () => 'def solve(data):\n    from collections import Counter\n    c = Counter(data.strip())\n    return [f"{k} {c[k]}" for k in sorted(c)]',
  },
  {
    name: 'transpose',
    statement: () => 'The first line holds r and c; then r lines of c integers. Print the transposed c × r matrix, one row per line, values separated by spaces.',
    input: (rng, scale) => {
      const [r, c] = scale === 'large' ? [150, 150] : scale === 'medium' ? [rng.int(5, 20), rng.int(5, 20)] : [rng.int(1, 3), rng.int(1, 3)];
      const rows = Array.from({ length: r }, () => rangeInts(rng, c, 0, 99999).join(' '));
      return `${r} ${c}\n${rows.join('\n')}\n`;
    },
    oracle: (input) => {
      const [head, ...rest] = lines(input.trim());
      const [r, c] = ints(head);
      const m = rest.slice(0, r).map(ints);
      return Array.from({ length: c }, (_, j) => m.map((row) => row[j]).join(' '));
    },
    solve: () => 'def solve(data):\n    it = data.split("\\n")\n    r, c = map(int, it[0].split())\n    m = [it[1 + i].split() for i in range(r)]\n    return [" ".join(m[i][j] for i in range(r)) for j in range(c)]',
  },
  {
    name: 'fizz',
    statement: (p) => `Read n. For i = 1 … n print "${p.a}${p.b}" if i is divisible by ${p.x} and by ${p.y}, "${p.a}" if only by ${p.x}, "${p.b}" if only by ${p.y}, else i.`,
    params: (rng) => {
      const x = rng.int(2, 5);
      return { x, y: x + rng.int(1, 4), a: rng.choice(['Fizz', 'Foo', 'Ping']), b: rng.choice(['Buzz', 'Bar', 'Pong']) };
    },
    input: (rng, scale) => `${sizeOf(scale, rng.int(1, 15), rng.int(100, 600), 20000)}\n`,
    oracle: (input, p) =>
      Array.from({ length: Number(input.trim()) }, (_, k) => {
        const i = k + 1;
        const s = (i % Number(p.x) === 0 ? String(p.a) : '') + (i % Number(p.y) === 0 ? String(p.b) : '');
        return s || String(i);
      }),
    solve: (p) =>
      `def solve(data):\n    out = []\n    for i in range(1, int(data) + 1):\n        s = ("${p.a}" if i % ${p.x} == 0 else "") + ("${p.b}" if i % ${p.y} == 0 else "")\n        out.append(s or str(i))\n    return out`,
  },
  {
    name: 'max_subarray',
    statement: () => 'Read n, then n integers. Print the largest sum of a non-empty contiguous subarray.',
    input: (rng, scale) => {
      const n = sizeOf(scale, rng.int(1, 6), rng.int(50, 500), 30000);
      return `${n}\n${rangeInts(rng, n, -1000, 1000).join(' ')}\n`;
    },
    oracle: (input) => {
      const xs = ints(input).slice(1);
      let best = -Infinity;
      let cur = 0;
      for (const x of xs) {
        cur = Math.max(x, cur + x);
        best = Math.max(best, cur);
      }
      return [String(best)];
    },
    solve: () => 'def solve(data):\n    xs = list(map(int, data.split()))[1:]\n    best, cur = xs[0], 0\n    for x in xs:\n        cur = max(x, cur + x)\n        best = max(best, cur)\n    return [str(best)]',
  },
  {
    name: 'dedupe',
    statement: () => 'Read n, then n words. Print the distinct words in the order of their first occurrence, one per line.',
    input: (rng, scale) => {
      const n = sizeOf(scale, rng.int(1, 8), rng.int(50, 400), 30000);
      const vocab = sizeOf(scale, 5, 60, 14000);
      const words = Array.from({ length: n }, () => `w${rng.int(0, vocab)}`);
      return `${n}\n${words.join(' ')}\n`;
    },
    oracle: (input) => [...new Set(input.trim().split(/\s+/).slice(1))],
    solve: () => 'def solve(data):\n    seen, out = set(), []\n    for w in data.split()[1:]:\n        if w not in seen:\n            seen.add(w)\n            out.append(w)\n    return out',
  },
];

/** The reference solution wrapped in an I/O idiom; `solve` returns the output lines. */
const IDIOMS: Record<string, (solve: string) => string> = {
  print_lines: (s) => `import sys\n\n${s}\n\nfor line in solve(sys.stdin.read()):\n    print(line)`,
  join: (s) => `import sys\n\n${s}\n\nprint("\\n".join(solve(sys.stdin.read())))`,
  stdout_write: (s) => `import sys\n\n${s}\n\nsys.stdout.write("\\n".join(solve(sys.stdin.read())) + "\\n")`,
  atexit_flush: (s) =>
    `import atexit, io, sys\n\n_buf = io.StringIO()\natexit.register(lambda: sys.stdout.write(_buf.getvalue()))\n\n${s}\n\nfor line in solve(sys.stdin.read()):\n    _buf.write(line)\n    _buf.write("\\n")`,
  stdin_buffer: (s) => `import sys\n\n${s}\n\ndata = sys.stdin.buffer.read().decode()\nsys.stdout.buffer.write(("\\n".join(solve(data)) + "\\n").encode())`,
  fstat_read: (s) => `import os\n\n${s}\n\ndata = os.read(0, os.fstat(0).st_size).decode()\nprint("\\n".join(solve(data)))`,
  input_loop: (s) => `${s}\n\nrows = []\nwhile True:\n    try:\n        rows.append(input())\n    except EOFError:\n        break\nprint("\\n".join(solve("\\n".join(rows))))`,
  print_star: (s) => `import sys\n\n${s}\n\nprint(*solve(sys.stdin.read()), sep="\\n")`,
  main_guard: (s) => `import sys\n\n${s}\n\ndef main():\n    out = solve(sys.stdin.read())\n    sys.stdout.write("\\n".join(out) + "\\n")\n\nif __name__ == "__main__":\n    main()`,
  sys_exit: (s) => `import sys\n\n${s}\n\nprint("\\n".join(solve(sys.stdin.read())))\nsys.exit(0)`,
  threading_main: (s) =>
    `import sys\nimport threading\n\n${s}\n\ndef main():\n    print("\\n".join(solve(sys.stdin.read())))\n\nsys.setrecursionlimit(1 << 20)\nthreading.stack_size(1 << 26)\nt = threading.Thread(target=main)\nt.start()\nt.join()`,
  missing_import: (s) => `import sys\n\n${s}\n\nout = deque(solve(sys.stdin.read()))\nprint("\\n".join(out))`,
};

/** Output perturbations: a Python transform of the output text and the same in TypeScript. */
const OUTPUT_VARIANTS: Record<string, { kind: 'wrong' | 'format'; py: string; ts: (out: string[]) => string }> = {
  drop_last_line: { kind: 'wrong', py: 'lines = lines[:-1]\ntext = "\\n".join(lines) + "\\n"', ts: (o) => `${o.slice(0, -1).join('\n')}\n` },
  duplicate_first: { kind: 'wrong', py: 'lines = lines[:1] + lines\ntext = "\\n".join(lines) + "\\n"', ts: (o) => `${[...o.slice(0, 1), ...o].join('\n')}\n` },
  reverse_lines: { kind: 'wrong', py: 'text = "\\n".join(lines[::-1]) + "\\n"', ts: (o) => `${[...o].reverse().join('\n')}\n` },
  last_digit_bumped: {
    kind: 'wrong',
    py: 'text = "\\n".join(lines) + "\\n"\nk = max((i for i, ch in enumerate(text) if ch.isdigit()), default=-1)\nif k >= 0:\n    text = text[:k] + str((int(text[k]) + 1) % 10) + text[k + 1:]',
    ts: (o) => {
      const text = `${o.join('\n')}\n`;
      const k = Math.max(...[...text].map((c, i) => (/\d/.test(c) ? i : -1)));
      return k >= 0 ? text.slice(0, k) + String((Number(text[k]) + 1) % 10) + text.slice(k + 1) : text;
    },
  },
  trailing_blank_lines: { kind: 'format', py: 'text = "\\n".join(lines) + "\\n\\n\\n"', ts: (o) => `${o.join('\n')}\n\n\n` },
  leading_newline: { kind: 'format', py: 'text = "\\n" + "\\n".join(lines) + "\\n"', ts: (o) => `\n${o.join('\n')}\n` },
  no_final_newline: { kind: 'format', py: 'text = "\\n".join(lines)', ts: (o) => o.join('\n') },
  trailing_spaces: { kind: 'format', py: 'text = "\\n".join(l + " " for l in lines) + "\\n"', ts: (o) => `${o.map((l) => `${l} `).join('\n')}\n` },
  crlf: { kind: 'format', py: 'text = "\\r\\n".join(lines) + "\\r\\n"', ts: (o) => `${o.join('\r\n')}\r\n` },
  space_separated: { kind: 'format', py: 'text = " ".join(lines) + "\\n"', ts: (o) => `${o.join(' ')}\n` },
};

const RUNTIME_ERRORS: Record<string, (s: string) => string> = {
  raise_after_output: (s) => `${IDIOMS.join(s)}\nraise RuntimeError("done")`,
  index_error_first: (s) => `${s}\n\nxs = []\nprint(xs[0])`,
  exit_1_after_output: (s) => `${IDIOMS.join(s)}\nsys.exit(1)`,
  undefined_name: (s) => `import sys\n\n${s}\n\nprint("\\n".join(solve_fast(sys.stdin.read())))`,
  syntax_error: (s) => `${s}\n\nprint("\\n".join(solve(input())`,
};

const TIMEOUTS: Record<string, (s: string) => string> = {
  busy_loop_first: (s) => `${s}\n\nwhile True:\n    pass`,
  sleep_forever: (s) => `import time\n\n${s}\n\ntime.sleep(10 ** 6)`,
  loop_after_output: (s) => `${IDIOMS.stdout_write(s)}\nsys.stdout.flush()\nwhile True:\n    pass`,
};

const FENCES_PER_PROBLEM = 4;

const fence = (code: string, open = '```python\n', close = '\n```') => `Here is my solution.\n\n${open}${code}${close}\n`;

/** Fence variants of a correct program: the text and whether a code block should be found. */
const FENCES: Record<string, { text: (code: string) => string; found: boolean }> = {
  python: { text: (c) => fence(c), found: true },
  py: { text: (c) => fence(c, '```py\n'), found: true },
  python3: { text: (c) => fence(c, '```python3\n'), found: true },
  Python: { text: (c) => fence(c, '```Python\n'), found: true },
  plain: { text: (c) => fence(c, '```\n'), found: true },
  lang_trailing_space: { text: (c) => fence(c, '```python \n'), found: true },
  close_on_last_line: { text: (c) => fence(c, '```python\n', '```'), found: true },
  text_after: { text: (c) => `${fence(c)}\nThis runs in O(n log n) time.`, found: true },
  tilde: { text: (c) => fence(c, '~~~python\n', '\n~~~'), found: false },
  unclosed: { text: (c) => `Solution:\n\`\`\`python\n${c}\n`, found: false },
  space_before_lang: { text: (c) => fence(c, '``` python\n'), found: false },
};

export interface CorpusOptions {
  seed: number;
  /** Problems per family. */
  perFamily: number;
}

export function generateCodeCorpus({ seed, perFamily }: CorpusOptions): { problems: CodeProblem[]; replies: CodeReply[] } {
  const problems: CodeProblem[] = [];
  const replies: CodeReply[] = [];
  const rng = new Rng(seed);
  const idiomNames = Object.keys(IDIOMS);
  for (const family of FAMILIES) {
    for (let k = 0; k < perFamily; k++) {
      const p = family.params?.(rng) ?? {};
      const scales: Scale[] = ['small', 'small', 'medium', 'medium', ...(k % 2 === 0 ? (['large'] as Scale[]) : ['medium' as Scale])];
      const inputs = scales.map((s) => family.input(rng, s, p));
      const outLines = inputs.map((i) => family.oracle(i, p));
      const outputs = outLines.map((o) => `${o.join('\n')}\n`);
      const index = problems.length;
      problems.push({
        id: `${family.name}-${k}`,
        family: family.name,
        problem: family.statement(p),
        tests: { inputs, outputs },
        largeOutput: outputs.some((o) => Buffer.byteLength(o) > 64 * 1024),
      });
      const solve = family.solve(p);
      const add = (kind: CodeReply['kind'], variant: string, text: string, intended: number) =>
        replies.push({ id: replies.length, problem: index, kind, variant, text, intended });
      // Every idiom on every problem: each is a reference solution and must score 1.
      for (const name of idiomNames) add('correct', name, fence(IDIOMS[name](solve)), 1);
      for (const [name, v] of Object.entries(OUTPUT_VARIANTS)) {
        const code = `import sys\n\n${solve}\n\nlines = solve(sys.stdin.read())\n${v.py}\nsys.stdout.write(text)`;
        const right = outLines.every((o, t) => pyStrip(v.ts(o)) === pyStrip(outputs[t]));
        add(v.kind, name, fence(code), right ? 1 : 0);
      }
      const pick = <T>(table: Record<string, T>, n: number) => rng.sample(Object.keys(table), n);
      for (const name of pick(RUNTIME_ERRORS, 2)) add('runtime', name, fence(RUNTIME_ERRORS[name](solve)), 0);
      // Each costs the full timeout on both sides: on one problem in four.
      if (k % 4 === 1) for (const name of pick(TIMEOUTS, 1)) add('timeout', name, fence(TIMEOUTS[name](solve)), 0);
      // Fences and several blocks do not depend on the problem: a few of them per problem, in turn.
      const plain = IDIOMS.print_lines(solve);
      const fences = Object.entries(FENCES);
      for (let j = 0; j < FENCES_PER_PROBLEM; j++) {
        const [name, f] = fences[(index * FENCES_PER_PROBLEM + j) % fences.length];
        add('fence', name, f.text(plain), f.found ? 1 : -0.1);
      }
      const wrong = `${solve}\n\nprint("no idea")`;
      const multi: Array<[string, string, number]> = [
        ['wrong_then_right', `First try:\n${fence(wrong)}\nFixed:\n${fence(plain)}`, 1],
        ['right_then_wrong', `${fence(plain)}\nOr shorter:\n${fence(wrong)}`, 0],
        ['right_then_sample_output', `${fence(plain)}\nFor the sample it prints:\n\`\`\`text\n${outLines[0].slice(0, 3).join('\n')}\n\`\`\`\n`, 0],
        ['right_then_shell', `${fence(plain)}\nRun it with:\n\`\`\`bash\npython3 main.py < input.txt\n\`\`\`\n`, 0],
      ];
      for (let j = 0; j < 2; j++) add('multi', ...multi[(index * 2 + j) % multi.length]);
      add('no_code', 'prose', `Read the input, call solve and print the result; ${family.statement(p)}`, -0.1);
    }
  }
  return { problems, replies };
}
