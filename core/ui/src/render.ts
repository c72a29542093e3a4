/** Pieces shared by the episode, compare and play views: text, boards, replies, conversations. */
import { h } from './dom.ts';
import { findGrids, type Grid } from './textGrid.ts';
import { parsedSpan, type Message } from './turnParts.ts';

const MARK_CLASS: Record<string, string> = { G: 'mark-g', Y: 'mark-y', X: 'mark-x' };

/** Tiles of a 2048-like board (unlabelled, every number a power of two) are shaded by value. */
function isTileBoard(g: Grid): boolean {
  if (g.header || g.rowLabels) return false;
  const nums = g.rows.flat().filter((v) => /^\d+$/.test(v)).map(Number);
  return nums.length > 0 && nums.every((n) => n >= 2 && (n & (n - 1)) === 0);
}

function cellClass(v: string, tiles: boolean): string {
  // '.' and '_' mean different things per game (Crosswords: blocked / to fill): kept apart.
  if (v === '.') return 'cell empty';
  if (v === '_' || v === '__') return 'cell blank';
  if (v === '#') return 'cell wall';
  if (/^\d+$/.test(v)) return tiles ? `cell num n${Math.min(12, Math.round(Math.log2(Number(v))))}` : 'cell num';
  if (/^[A-Za-z]$/.test(v)) return 'cell letter';
  return 'cell sym';
}

export function gridTable(g: Grid): HTMLTableElement {
  const rule = (set: number[], i: number) => set.includes(i);
  const tiles = isTileBoard(g);
  return h(
    'table',
    { class: 'board', 'data-rows': g.rows.length, 'data-cols': g.rows[0]?.length ?? 0 },
    g.header ? h('thead', {}, h('tr', {}, g.rowLabels ? h('th', {}) : null, ...g.header.map((c) => h('th', {}, c)))) : null,
    h(
      'tbody',
      {},
      ...g.rows.map((row, r) =>
        h(
          'tr',
          { class: rule(g.ruleAfterRows, r) ? 'rule-below' : '' },
          g.rowLabels ? h('th', {}, g.rowLabels[r]) : null,
          ...row.map((cellText, c) => {
            // A bracketed cell is a marked one (WordSearch's found letters).
            const found = /^\[.+\]$/.test(cellText);
            const v = found ? cellText.slice(1, -1) : cellText;
            const mark = g.marks?.[r]?.[c];
            const cls = `${cellClass(v, tiles)}${found ? ' found' : ''}${mark ? ` ${MARK_CLASS[mark]}` : ''}${rule(g.ruleAfterCols, c) ? ' rule-right' : ''}`;
            return h('td', { class: cls }, v === '.' || v === '_' || v === '__' ? '' : v);
          }),
        ),
      ),
    ),
  );
}

/** The boards found in `text` as grids, or null when it has none. */
export function boards(text: string): HTMLElement | null {
  const grids = findGrids(text).filter((s) => s.kind === 'grid');
  if (!grids.length) return null;
  return h('div', { class: 'boards' }, ...grids.map((s) => (s.kind === 'grid' ? gridTable(s.grid) : null)));
}

/**
 * The board at the last of `texts` (one screen per turn so far). Wordle-like feedback (rows with
 * G/Y/X marks) shows only the newest guess per turn, so those rows are stacked across the turns.
 */
export function boardsSoFar(texts: readonly string[]): HTMLElement | null {
  const last = texts[texts.length - 1] ?? '';
  const lastGrids = findGrids(last).flatMap((s) => (s.kind === 'grid' ? [s.grid] : []));
  if (!lastGrids.some((g) => g.marks)) return boards(last);
  const rows: string[][] = [];
  const marks: (string[] | undefined)[] = [];
  for (const t of texts) {
    for (const s of findGrids(t)) {
      if (s.kind !== 'grid' || !s.grid.marks) continue;
      rows.push(...s.grid.rows);
      marks.push(...s.grid.marks);
    }
  }
  return h('div', { class: 'boards' }, gridTable({ rows, marks, ruleAfterRows: [], ruleAfterCols: [] }));
}

export function rawText(text: string, cls = ''): HTMLElement {
  return h('pre', { class: `raw ${cls}` }, text);
}

/** The reply with the part the env (or a tool) parsed marked. */
export function replyView(reply: string, toolTurn: boolean): HTMLElement {
  const span = parsedSpan(reply, toolTurn);
  if (!span) return h('pre', { class: 'raw reply' }, reply || '(empty reply)');
  return h(
    'pre',
    { class: 'raw reply' },
    reply.slice(0, span.start),
    h('mark', { class: `parsed ${span.kind}`, title: span.kind === 'tool' ? 'tool call' : 'parsed answer' }, reply.slice(span.start, span.end)),
    reply.slice(span.end),
  );
}

export function parsedLabel(reply: string, toolTurn: boolean): HTMLElement {
  const span = parsedSpan(reply, toolTurn);
  return span
    ? h('div', { class: 'parsed-label' }, span.kind === 'tool' ? 'tool call: ' : 'parsed: ', h('code', {}, reply.slice(span.start, span.end)))
    : h('div', { class: 'parsed-label none' }, 'no \\boxed{…} answer in this reply');
}

export function conversation(messages: readonly Message[]): HTMLElement {
  return h(
    'div',
    { class: 'chat' },
    ...messages.map((m) => h('div', { class: `msg msg-${m.role}` }, h('div', { class: 'role' }, m.role), h('pre', { class: 'content' }, m.content))),
  );
}
