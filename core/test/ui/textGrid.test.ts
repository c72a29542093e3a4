/**
 * Boards found in what the games really print: every board game's reset and step texts over a few
 * seeds and random moves give one grid of the board's size; the texts of non-board games give none.
 */
import { describe, expect, it } from 'vitest';
import type { Info } from '../../src/core/env.ts';
import { make } from '../../src/envs/defaultRegistry.ts';
import '../../src/envs/index.ts';
import { findGrids, type Grid } from '../../ui/src/textGrid.ts';

async function screens(id: string, seed: number, steps = 5): Promise<string[]> {
  const env = make<unknown, string>(id);
  const out: string[] = [];
  let r: { observation: unknown; info: Info; terminated?: boolean } = await env.reset({ seed });
  for (let i = 0; i <= steps; i++) {
    out.push(`${String(r.observation)}\n${typeof r.info.suffix === 'string' ? r.info.suffix : ''}`);
    if (r.terminated) break;
    r = await env.step(env.sampleRandomAction());
  }
  await env.close();
  return out;
}

const grids = (text: string) => findGrids(text).flatMap((s) => (s.kind === 'grid' ? [s.grid] : []));
const dims = (g: Grid) => `${g.rows.length}x${g.rows[0].length}`;

describe('findGrids on the games’ own boards', () => {
  // Sizes vary with the seed (word lists, random presets): the grid must be the same on every screen
  // of an episode, with the first screen's size where the variant fixes it.
  const boards: [string, string | undefined, { header?: boolean; labels?: boolean }][] = [
    ['game:Sudoku-v0-easy', '4x4', { header: true, labels: true }],
    ['game:Sudoku-v0-hard', '9x9', { header: true, labels: true }],
    ['game:Minesweeper-v0-easy', '5x5', { header: true, labels: true }],
    ['game:Game2048-v0-easy', '4x4', {}],
    ['game:Sokoban-v0-easy', '6x6', {}],
    ['game:FifteenPuzzle-v0-hard', '4x4', {}],
    ['game:Crosswords-v0-hard', undefined, { header: true, labels: true }],
    ['game:WordSearch-v0-easy', undefined, { header: true, labels: true }],
    ['game:Hangman-v0-hard', undefined, { header: true }],
  ];
  for (const [id, size, shape] of boards) {
    it(`${id}: one grid on every screen`, async () => {
      for (const seed of [0, 1, 2]) {
        const seen = new Set<string>();
        for (const text of await screens(id, seed)) {
          const gs = grids(text);
          expect(gs, text).toHaveLength(1);
          seen.add(dims(gs[0]));
          if (gs[0].header) expect(gs[0].header).toHaveLength(gs[0].rows[0].length);
          expect(!!gs[0].header).toBe(!!shape.header);
          expect(!!gs[0].rowLabels).toBe(!!shape.labels);
        }
        expect(seen.size).toBe(1);
        if (size) expect([...seen]).toEqual([size]);
      }
    });
  }

  it('Sudoku keeps its box rules', async () => {
    const [text] = await screens('game:Sudoku-v0-hard', 0, 0);
    const g = grids(text)[0];
    expect(g.ruleAfterCols).toEqual([2, 5]);
    expect(g.ruleAfterRows).toEqual([2, 5]);
  });

  it('Wordle feedback becomes coloured letters', async () => {
    const env = make<string, string>('game:Wordle-v0-hard');
    await env.reset({ seed: 4 });
    const r = await env.step('\\boxed{CRANE}');
    const [g] = grids(r.observation);
    expect(g.rows).toEqual([['C', 'R', 'A', 'N', 'E']]);
    expect(g.marks?.[0]).toHaveLength(5);
    expect(g.marks?.[0]?.every((m) => ['G', 'Y', 'X'].includes(m))).toBe(true);
  });

  for (const id of ['game:GuessTheNumber-v0-hard', 'game:Mastermind-v0-hard', 'game:TowerofHanoi-v0-hard']) {
    it(`${id}: no grid (plain text)`, async () => {
      for (const text of await screens(id, 0)) expect(grids(text)).toEqual([]);
    });
  }

  it('joining the segments gives the text back', async () => {
    for (const text of await screens('game:Sudoku-v0-easy', 3)) {
      expect(findGrids(text).map((s) => s.text).join('\n')).toBe(text);
    }
  });
});
