/**
 * `gem-ts ui` in a real browser: Playwright (playwright-core) drives Debian's Chromium headless over
 * transcripts gem-ts eval wrote. Opens runs, filters and sorts, opens an episode in two clicks and
 * steps through its turns, reads a benchmark's curves, compares two runs, plays GuessTheNumber to a
 * win by clicking (and watches a fake endpoint model win), and reads broken and 100 MB files. One
 * screenshot per view is kept in core/test/ui/artifacts/ (gitignored).
 *
 * Chromium comes from `npm test` (ensureChromium in scripts/lib.mjs installs it with apt-get when it
 * can); where it cannot, that sets GEM_TS_SKIP_BROWSER_TESTS=1 and these tests skip, loudly.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUiServer, type UiServer } from '../../src/ui/uiServer.ts';
import { binarySearchGuess, binarySearchPolicy, startMockServer, type MockServer } from '../eval/mockChatServer.ts';
import { committedBenchmarkCurves, makeSampleRuns } from './sampleRuns.ts';
import { fmt } from '../../ui/src/format.ts';

const CHROMIUM = process.env.GEM_TS_CHROMIUM ?? '/usr/bin/chromium';
const skip = process.env.GEM_TS_SKIP_BROWSER_TESTS === '1';
const ARTIFACTS = join(__dirname, 'artifacts');

let dir: string;
let ui: UiServer;
let ctx: BrowserContext;
let page: Page;
let mock: MockServer;
let searchLines: Record<string, unknown>[];
const pageErrors: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function go(hash: string): Promise<void> {
  await page.goto(`${ui.url}/#${hash}`);
}

/** A transcripts.jsonl of about `mb` MB: the sample episodes over and over with distinct seeds. */
async function writeBig(path: string, mb: number): Promise<number> {
  const ws = createWriteStream(path);
  let bytes = 0;
  let n = 0;
  while (bytes < mb * 2 ** 20) {
    const batch: string[] = [];
    for (let i = 0; i < 1000; i++, n++) batch.push(JSON.stringify({ ...searchLines[n % searchLines.length], seed: n }));
    const text = batch.join('\n') + '\n';
    bytes += Buffer.byteLength(text);
    if (!ws.write(text)) await new Promise<void>((r) => ws.once('drain', () => r()));
  }
  await new Promise<void>((r) => ws.end(() => r()));
  return n;
}

describe.skipIf(skip)('gem-ts ui in Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install chromium; npm test does this as root) or set GEM_TS_SKIP_BROWSER_TESTS=1`);
    }
    dir = mkdtempSync(join(tmpdir(), 'gem-ui-browser-'));
    mkdirSync(ARTIFACTS, { recursive: true });
    const runs = await makeSampleRuns(join(dir, 'runs'), 3);
    searchLines = readFileSync(join(runs.search, 'transcripts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    // A damaged transcript: a malformed line, a record from a newer format version, a cut-off end.
    const raw = readFileSync(join(runs.search, 'transcripts.jsonl'), 'utf8').trim().split('\n');
    // The newer record also renames a turn field (user -> prompt): the page must still show it.
    const second = JSON.parse(raw[1]);
    second.turns = second.turns.map(({ user, ...t }: { user: string }) => ({ ...t, prompt: user }));
    const newer = JSON.stringify({ ...second, version: 2, judge: { score: 0.5 } });
    mkdirSync(join(dir, 'broken', 'damaged'), { recursive: true });
    writeFileSync(join(dir, 'broken', 'damaged', 'transcripts.jsonl'), [raw[0], '{"env_id": "game:Sudoku-v0-easy", "seed": 9, "tur', newer, raw[2], raw[3].slice(0, 100)].join('\n'));
    writeFileSync(join(dir, 'broken', 'damaged', 'summary.json'), JSON.stringify({ model: 'mock-search', complete: false, errors: [{ env_id: 'game:Sudoku-v0-easy', seed: 9, code: 'ENDPOINT_ERROR', message: 'HTTP 503' }] }));
    mock = await startMockServer({ policy: binarySearchPolicy });
    ui = await startUiServer({ port: 0, playDir: join(dir, 'play') });
    await ui.catalog.add(join(dir, 'runs'));
    await ui.catalog.add(join(__dirname, '../../../docs/results/benchmark_algorithms.json'));
    await ui.catalog.add(join(dir, 'broken'));
    ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'gem-ui-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 860 },
    });
    page = ctx.pages()[0] ?? (await ctx.newPage());
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // The app must not reach outside the machine: any request off 127.0.0.1 fails the run.
    await page.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname !== '127.0.0.1') {
        pageErrors.push(`request to ${u.href}`);
        return route.abort();
      }
      return route.continue();
    });
  }, 60_000);

  afterAll(async () => {
    await ctx?.close();
    await ui?.close();
    await mock?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  });

  it('Runs: open a run, filter and sort its episodes', async () => {
    await go('/');
    await expect.poll(() => page.locator('.runs-table tbody tr').count()).toBe(4);
    await page.locator('.runs-table a', { hasText: 'search' }).click();
    await page.locator('.episode-table tbody tr').first().waitFor();
    expect(await page.locator('.episode-table tbody tr').count()).toBe(12);
    expect(await page.locator('.env-table tbody tr').count()).toBe(4);
    await page.selectOption('select[name=env]', 'game:Sudoku-v0-easy');
    await expect.poll(() => page.locator('.episode-table tbody tr').count()).toBe(3);
    expect(await page.locator('.episode-table tbody td:nth-child(2)').allTextContents()).toEqual(Array(3).fill('game:Sudoku-v0-easy'));
    await page.selectOption('select[name=env]', '');
    await page.selectOption('select[name=success]', 'yes');
    await expect.poll(async () => new Set(await page.locator('.episode-table tbody td:nth-child(5)').allTextContents())).toEqual(new Set(['yes']));
    await page.selectOption('select[name=success]', '');
    // Sort by return, then flip to descending.
    await page.click('th[data-sort=return]');
    await page.click('th[data-sort=return]');
    await expect.poll(() => page.locator('th[data-sort=return]').getAttribute('class')).toMatch(/desc/);
    const rets = (await page.locator('.episode-table tbody td:nth-child(6)').allTextContents()).map(Number);
    expect(rets).toEqual([...rets].sort((a, b) => b - a));
    await page.fill('input[name=q]', 'wordle');
    await expect.poll(() => page.locator('.episode-table tbody tr').count()).toBe(3);
    await shot('runs');
    // A run still being written: an appended episode shows up without a reload.
    await page.fill('input[name=q]', '');
    await expect.poll(() => page.locator('.episode-table tbody tr').count()).toBe(12);
    appendFileSync(join(dir, 'runs', 'search', 'transcripts.jsonl'), JSON.stringify({ ...searchLines[0], seed: 99 }) + '\n');
    await expect.poll(() => page.locator('.episode-table tbody tr').count(), { timeout: 15_000 }).toBe(13);
    await page.fill('input[name=q]', '');
  });

  it('Episode: two clicks from the runs list, then step through every turn', async () => {
    await go('/');
    await page.locator('.runs-table a', { hasText: 'search' }).click(); // click 1
    const rec = searchLines.find((r) => r.env_id === 'game:Sudoku-v0-easy') as { seed: number; turns: { user: string; reply: string; reward: number }[] };
    const line = searchLines.indexOf(rec) + 1;
    await page.locator(`.episode-table tr[data-line="${line}"]`).click(); // click 2
    await page.locator('.episode-head h1').waitFor();
    expect(await page.locator('.episode-head h1').textContent()).toContain('game:Sudoku-v0-easy');
    expect(await page.locator('.turn-chip[data-turn]').count()).toBe(rec.turns.length + 1);
    for (let t = 0; t < rec.turns.length; t++) {
      await expect.poll(() => page.locator('.turn-chip.current').getAttribute('data-turn')).toBe(String(t + 1));
      expect(await page.locator('pre.observation').textContent()).toBe(rec.turns[t].user);
      // The parsed part of the reply is marked: the content of its last \boxed{}.
      expect(await page.locator('mark.parsed').textContent()).toBe(/\\boxed\{([^}]*)\}/.exec(rec.turns[t].reply)![1]);
      // Sudoku's board is drawn as a 4×4 grid.
      expect(await page.locator('table.board').getAttribute('data-rows')).toBe('4');
      expect(await page.locator('table.board').getAttribute('data-cols')).toBe('4');
      if (t === 1) await shot('episode');
      if (t % 2) await page.keyboard.press('ArrowRight');
      else await page.click('.step.next');
    }
    await expect.poll(() => page.locator('.turn-chip.current').getAttribute('data-turn')).toBe('end');
    await page.click('.turn-chip[data-turn="1"]');
    await page.click('button[data-view=chat]');
    expect(await page.locator('.chat .msg').count()).toBe(1);
    await page.click('.turn-chip[data-turn="3"]');
    // Turn 3 in chat mode: user, assistant, user, assistant, user.
    expect(await page.locator('.chat .msg').count()).toBe(5);
    await page.click('a.next-episode');
    await expect.poll(() => page.locator('.episode-head .muted', { hasText: 'line' }).textContent()).toBe(`line ${line + 1}`);
    await page.click('a.prev-episode');
    await expect.poll(() => page.locator('.episode-head .muted', { hasText: 'line' }).textContent()).toBe(`line ${line}`);
    await page.click('.turn-chip[data-turn="3"]');
    await page.click('button[data-view=template]');
    await expect.poll(() => page.locator('pre.template').textContent()).toMatch(/^<\|im_start\|>user\n[\s\S]*<\|im_start\|>assistant\n$/);
    // The same turn through Llama 3's template.
    await page.selectOption('select[name=template]', 'llama3');
    await expect.poll(() => page.locator('pre.template').textContent()).toMatch(/^<\|begin_of_text\|><\|start_header_id\|>user<\|end_header_id\|>/);
  });

  it('Runs: a benchmark result shows its learning curves', async () => {
    await go('/run/benchmark_algorithms');
    await page.locator('svg.chart').first().waitFor();
    const want = committedBenchmarkCurves();
    expect(await page.locator('section.task').count()).toBe(want.tasks.length);
    const ran = want.tasks.find((t) => want.curves[t] > 0)!;
    // One mean line per algorithm over a band (the 95% interval over seeds), no line per seed.
    const chart = page.locator(`section.task[data-task=${ran}] svg.chart`).first();
    expect(await chart.locator('polyline.series').count()).toBe(want.algorithms[ran].length);
    expect(await chart.locator('polygon.band').count()).toBe(want.algorithms[ran].length);
    expect(await chart.locator('polyline:not(.series)').count()).toBe(0);
    // The table's final values carry the same intervals as the Python report's summary.
    const cells = await page.locator(`section.task[data-task=${ran}] table tbody tr`).evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    const shown = new Map(cells.map(([name, ...vals]) => [name, vals]));
    const metrics = await page.locator(`section.task[data-task=${ran}] table thead th`).allTextContents();
    const at = metrics.indexOf('final success') - 1;
    for (const algo of want.algorithms[ran]) {
      const r = want.summary[ran][algo].final_success;
      expect(shown.get(algo)?.[at]).toBe(`${fmt(r.mean)} [${fmt(r.lo)}, ${fmt(r.hi)}]`);
    }
    // Every label is drawn whole inside the chart (the legend was cut at the right edge), and no two
    // baseline labels or legend entries overlap (close baselines printed on top of each other).
    const boxes = await page.locator('svg.chart').evaluateAll((charts) =>
      charts.map((c) => {
        const r = c.getBoundingClientRect();
        const texts = [...c.querySelectorAll('text')].map((t) => ({ cls: t.getAttribute('class') ?? '', text: t.textContent, ...t.getBoundingClientRect().toJSON() }));
        return { chart: { left: r.left, right: r.right, top: r.top, bottom: r.bottom }, texts };
      }),
    );
    expect(boxes.length).toBeGreaterThan(0);
    let labels = 0;
    for (const { chart: c, texts } of boxes) {
      for (const t of texts) {
        expect(t.left >= c.left - 0.5 && t.right <= c.right + 0.5 && t.top >= c.top - 0.5 && t.bottom <= c.bottom + 0.5, `${t.text} inside the chart`).toBe(true);
      }
      for (const cls of ['baseline-label', 'legend']) {
        const group = texts.filter((t) => t.cls.split(' ').includes(cls));
        labels += group.length;
        for (const [i, a] of group.entries())
          for (const b of group.slice(i + 1)) expect(a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5 || a.right <= b.left || b.right <= a.left, `${a.text} / ${b.text} overlap`).toBe(true);
      }
    }
    expect(labels).toBeGreaterThan(4);
    await shot('benchmark');
  });

  it('Compare: two runs on the same seeds, first turn of divergence', async () => {
    await go('/compare');
    await page.selectOption('select[name=a]', 'search');
    await page.selectOption('select[name=b]', 'linear');
    await page.click('form.filters button[type=submit]');
    await expect.poll(() => page.locator('.compare-table tbody tr').count()).toBe(12);
    const row = page.locator('.compare-table tr[data-key="game:GuessTheNumber-v0-easy/0"]');
    expect(await row.locator('td.divergence').textContent()).toBe('turn 1: actions differ');
    await row.click();
    await page.locator('.side-by-side tr.first-divergence').waitFor();
    expect(await page.locator('.side-by-side tr.first-divergence').getAttribute('data-turn')).toBe('1');
    await shot('compare');
  });

  it('Play: GuessTheNumber to a win by clicking, saved, opened in the viewer', async () => {
    await go('/play');
    await page.fill('input[name=env_id]', 'game:GuessTheNumber-v0-hard');
    await page.fill('input[name=seed]', '11');
    await page.selectOption('select[name=player]', 'human');
    await page.click('.play-form button[type=submit]');
    let moves = 0;
    for (; moves < 10; moves++) {
      await page.locator('form.act, .result.won, .result.lost').first().waitFor();
      if (await page.locator('.result.won, .result.lost').count()) break;
      // Read what the player sees and answer by halving the range.
      const seen = await page.locator('details.card .chat .msg-user pre').allTextContents();
      const guess = binarySearchGuess(seen.map((content) => ({ role: 'user', content })));
      await page.fill('input[name=action]', String(guess));
      await page.click('form.act button[type=submit]');
      await page.locator(`.steps tbody tr:nth-child(${moves + 1})`).waitFor();
    }
    await page.locator('.result.won').waitFor();
    expect(await page.locator('.steps tbody tr').count()).toBe(moves);
    await shot('play');
    await page.click('a.open-saved');
    await page.locator('.episode-head').waitFor();
    expect(await page.locator('.episode-head .badge.ok').textContent()).toBe('success');
    expect(await page.locator('.turn-chip[data-turn]').count()).toBe(moves + 1);
  });

  it('Play: a click on a board cell writes its row and column into the move', async () => {
    await go('/play');
    await page.selectOption('select[name=player]', 'human');
    await page.fill('input[name=env_id]', 'game:Minesweeper-v0-easy');
    await page.fill('input[name=seed]', '0');
    await page.click('.play-form button[type=submit]');
    await page.locator('form.act').waitFor();
    await page.fill('input[name=action]', 'reveal');
    await page.locator('table.board tbody tr:nth-child(3) td:nth-of-type(4)').click();
    expect(await page.inputValue('input[name=action]')).toBe('reveal 2 3');
    await page.click('form.act button[type=submit]');
    await page.locator('.steps tbody tr').first().waitFor();
    expect(await page.locator('.steps tbody tr td:nth-child(2)').first().textContent()).toBe('\\boxed{reveal 2 3}');
    expect(await page.locator('table.board td.num').count()).toBeGreaterThan(0);
    await page.click('.play-head button');
  });

  it('Play: a model behind an OpenAI-compatible endpoint plays while the page follows', async () => {
    await go('/play');
    await page.fill('input[name=env_id]', 'game:GuessTheNumber-v0-hard');
    await page.selectOption('select[name=player]', 'model');
    await page.fill('input[name=base_url]', mock.url);
    await page.fill('input[name=model]', 'fake-searcher');
    await page.fill('input[name=delay_ms]', '0');
    await page.fill('input[name=seed]', '4');
    await page.click('.play-form button[type=submit]');
    await page.locator('.result.won').waitFor();
    expect(await page.locator('.play-head').textContent()).toContain('played by fake-searcher');
    await shot('play-model');
  });

  it('Bad input: malformed line, newer format version, cut-off end — notices, the rest shown', async () => {
    await go('/run/damaged');
    await page.locator('.notices').waitFor();
    const text = (await page.locator('.notices').textContent()) ?? '';
    expect(text).toMatch(/Line 2: not valid JSON/);
    expect(text).toMatch(/format version 2, newer than this viewer/);
    expect(text).toMatch(/ends in the middle of line 5/);
    expect(text).toMatch(/summary\.json marks this run incomplete: 1 episode failed \(game:Sudoku-v0-easy seed 9: ENDPOINT_ERROR HTTP 503\)/);
    await expect.poll(() => page.locator('.episode-table tbody tr').count()).toBe(3);
    await shot('malformed');
    await page.locator('.episode-table tr[data-line="3"]').click();
    await page.locator('.episode-head').waitFor();
    expect(await page.locator('.notices').textContent()).toMatch(/transcript format version 2/);
    expect(await page.locator('details.card summary').textContent()).toMatch(/other fields/);
    await page.click('.step.next');
    await expect.poll(() => page.locator('.turn-chip.current').getAttribute('data-turn')).toBe('2');
    expect(await page.locator('.card h3', { hasText: 'Action' }).count()).toBe(1);
  });

  it('Big files: a 100 MB transcript opens while it is read, and its last episode loads', async () => {
    const big = join(dir, 'big.jsonl');
    const episodes = await writeBig(big, 100);
    await go('/');
    await page.fill('form.open-path input', big);
    await page.click('form.open-path button');
    await page.locator('.episode-table tbody tr').first().waitFor();
    // The page answers while the server is still reading (or has just read) the file.
    expect(await page.evaluate("document.querySelectorAll('.episode-table tbody tr').length")).toBe(100);
    await expect.poll(() => page.locator('.run-status').textContent(), { timeout: 30_000 }).toContain(`${episodes} episodes ·`);
    await page.click('th[data-sort=line]');
    await page.click('th[data-sort=line]');
    await expect.poll(() => page.locator('.episode-table tbody tr').first().getAttribute('data-line')).toBe(String(episodes));
    await shot('big-file');
    await page.locator('.episode-table tbody tr').first().click();
    await page.locator('.episode-head').waitFor();
    expect(await page.locator('.episode-head h1').textContent()).toContain(`seed ${episodes - 1}`);
    rmSync(big);
  }, 60_000);
});
