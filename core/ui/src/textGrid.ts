/**
 * Boards as grids. No env hands out a structured board: the games draw their boards as text in the
 * observation (what the model sees), in a handful of layouts — aligned cells split by spaces,
 * optional column labels (C1 C2…, 0 1 2…), optional row labels (R1…, 0…), '|' and '---+---' box
 * rules (Sudoku), and Wordle's letter row above a G/Y/X row. This finds such blocks generically
 * (no per-game code: any env that prints an aligned table of short tokens gets a grid) and leaves
 * everything else as text. The raw text is always shown too, so a misread board loses nothing.
 */

export interface Grid {
  header?: string[];
  rowLabels?: string[];
  rows: string[][];
  /** Row indexes after which a box rule ('---+---') was drawn. */
  ruleAfterRows: number[];
  /** Column indexes after which a '|' was drawn. */
  ruleAfterCols: number[];
  /** Wordle: per row, G/Y/X marks for the letters (the mark rows themselves are folded in). */
  marks?: (string[] | undefined)[];
}

/**
 * A cell: up to 5 letters, digits or board symbols, or a short one in brackets (WordSearch marks found
 * letters `[B]`); no punctuation of prose or lists (, : ( ) ! ?), so `A: [3, 2]` is not a row.
 */
const CELL = /^(?:[\p{L}\p{N}._#*@$+√○●■□-]{1,5}|\[[\p{L}\p{N}._#*@$+√-]{1,3}\])$/u;
const RULE = /^\s*[-=+|]{3,}[-=+|\s]*$/;
const COL_LABEL = /^C?\d{1,3}$/;
const ROW_LABEL = /^R?\d{1,3}$/;

interface Tokens {
  cells: string[];
  barsAfter: number[];
}

function tokenise(line: string): Tokens | undefined {
  const raw = line.trim().split(/\s+/).filter(Boolean);
  if (raw.length < 2) return undefined;
  const cells: string[] = [];
  const barsAfter: number[] = [];
  for (const t of raw) {
    if (t === '|') {
      if (cells.length) barsAfter.push(cells.length - 1);
      continue;
    }
    if (!CELL.test(t)) return undefined;
    cells.push(t);
  }
  return cells.length >= 2 ? { cells, barsAfter } : undefined;
}

const isLabels = (cells: string[], re: RegExp) => cells.every((c) => re.test(c));

function labelsAreSequential(labels: string[]): boolean {
  const n = labels.map((l) => Number(l.replace(/^[RC]/, '')));
  return n.every((v, i) => v === n[0] + i) && (n[0] === 0 || n[0] === 1);
}

class Candidate {
  header?: string[];
  rows: Tokens[] = [];
  rules: number[] = [];
  width = 0;

  accepts(t: Tokens): boolean {
    if (!this.header && !this.rows.length) return true;
    if (!this.rows.length && this.header) return t.cells.length === this.header.length || t.cells.length === this.header.length + 1;
    return t.cells.length === this.width;
  }

  push(t: Tokens): void {
    if (!this.header && !this.rows.length && isLabels(t.cells, COL_LABEL) && labelsAreSequential(t.cells)) {
      this.header = t.cells;
      return;
    }
    if (!this.rows.length) this.width = t.cells.length;
    this.rows.push(t);
  }

  toGrid(): Grid | undefined {
    const rows = this.rows.map((r) => r.cells);
    if (rows.length < (this.header ? 1 : 2)) return undefined;
    let rowLabels: string[] | undefined;
    let body = rows;
    const firsts = rows.map((r) => r[0]);
    const labelled = this.header ? this.width === this.header.length + 1 : rows.length >= 2 && isLabels(firsts, ROW_LABEL) && labelsAreSequential(firsts) && this.width > 2;
    if (labelled) {
      if (!isLabels(firsts, ROW_LABEL)) return undefined;
      rowLabels = firsts;
      body = rows.map((r) => r.slice(1));
    }
    // A labelled single row (Hangman's word) is a board; an unlabelled one needs two rows.
    if (body[0].length < 2 || (!this.header && body.length * body[0].length < 4)) return undefined;
    const shift = labelled ? 1 : 0;
    const cols = this.rows[0].barsAfter.map((c) => c - shift).filter((c) => c >= 0 && c < body[0].length - 1);
    const grid: Grid = { header: this.header, rowLabels, rows: body, ruleAfterRows: this.rules.filter((r) => r < body.length - 1), ruleAfterCols: cols };
    return foldWordleMarks(grid);
  }
}

/** A letter row followed by a row of only G/Y/X of the same length: colour the letters, drop the marks. */
function foldWordleMarks(g: Grid): Grid {
  if (g.header || g.rowLabels) return g;
  const isMarks = (r: string[]) => r.every((c) => /^[GYX]$/.test(c));
  const isWord = (r: string[]) => r.every((c) => /^[A-Za-z]$/.test(c));
  if (!g.rows.some((r, i) => isMarks(r) && i > 0 && isWord(g.rows[i - 1]) && !isMarks(g.rows[i - 1]))) return g;
  const rows: string[][] = [];
  const marks: (string[] | undefined)[] = [];
  for (let i = 0; i < g.rows.length; i++) {
    const next = g.rows[i + 1];
    if (next && isWord(g.rows[i]) && isMarks(next) && !isMarks(g.rows[i])) {
      rows.push(g.rows[i]);
      marks.push(next);
      i++;
    } else {
      rows.push(g.rows[i]);
      marks.push(undefined);
    }
  }
  return { ...g, rows, marks, ruleAfterRows: [] };
}

export type Segment = { kind: 'text'; text: string } | { kind: 'grid'; grid: Grid; text: string };

/** The text split into plain runs and grids, in order; joining every segment's text gives the input back. */
export function findGrids(text: string): Segment[] {
  const lines = text.split('\n');
  const out: Segment[] = [];
  let plain: string[] = [];
  let cand = new Candidate();
  let candLines: string[] = [];

  const flushPlain = () => {
    if (plain.length) out.push({ kind: 'text', text: plain.join('\n') });
    plain = [];
  };
  const flushCand = () => {
    const grid = cand.toGrid();
    if (grid) {
      flushPlain();
      out.push({ kind: 'grid', grid, text: candLines.join('\n') });
    } else {
      plain.push(...candLines);
    }
    cand = new Candidate();
    candLines = [];
  };

  for (const line of lines) {
    if (RULE.test(line) && cand.rows.length) {
      cand.rules.push(cand.rows.length - 1);
      candLines.push(line);
      continue;
    }
    const t = tokenise(line);
    if (!t) {
      flushCand();
      plain.push(line);
      continue;
    }
    if (!cand.accepts(t)) flushCand();
    cand.push(t);
    candLines.push(line);
  }
  flushCand();
  flushPlain();
  return out;
}

export function hasGrid(text: string): boolean {
  return findGrids(text).some((s) => s.kind === 'grid');
}
