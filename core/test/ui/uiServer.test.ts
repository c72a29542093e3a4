/** The UI server's JSON API and its guards, on real eval transcripts (no browser here). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinCatalog } from '../../src/envs/builtinCatalog.ts';
import { make } from '../../src/envs/defaultRegistry.ts';
import { loadTranscripts } from '../../src/eval/transcriptStore.ts';
import { OpenEnvServer } from '../../src/server/openenv/openEnvServer.ts';
import { startUiServer, type UiServer } from '../../src/ui/uiServer.ts';
import { binarySearchGuess, binarySearchPolicy, startMockServer } from '../eval/mockChatServer.ts';
import { committedBenchmarkCurves, makeSampleRuns, SAMPLE_ENVS } from './sampleRuns.ts';

let dir: string;
let runs: { search: string; linear: string };
let ui: UiServer;

async function get<T = any>(path: string): Promise<T> {
  const res = await fetch(`${ui.url}${path}`);
  const body = await res.json();
  if (!res.ok) throw new Error(`${res.status} ${JSON.stringify(body)}`);
  return body as T;
}

async function post<T = any>(path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${ui.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

/** A raw request, so the Host and Origin headers can be anything. */
function rawRequest(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<number> {
  return rawResponse(path, headers, method, body).then((r) => r.status);
}

function rawResponse(path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; text: string }> {
  const { port } = new URL(ui.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gem-ui-server-'));
  runs = await makeSampleRuns(join(dir, 'runs'), 3);
  ui = await startUiServer({ port: 0, playDir: join(dir, 'play') });
  await ui.catalog.add(join(dir, 'runs'));
  await ui.catalog.add(join(__dirname, '../../../docs/results/benchmark_algorithms.json'));
});
afterAll(async () => {
  await ui?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('runs and episodes', () => {
  it('opens a folder of eval runs and a benchmark result', async () => {
    const { runs: list } = await get('/api/runs');
    expect(list.map((r: { name: string; kind: string }) => `${r.name}:${r.kind}`)).toEqual(['linear:eval', 'search:eval', 'benchmark_algorithms:benchmark']);
    const bad = await post('/api/runs', { path: join(dir, 'nothing-here') });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/no such file or folder/);
  });

  it('lists episodes with the per-env summary, filters, sorts and pages', async () => {
    const all = await get('/api/runs/search/episodes');
    expect(all.total).toBe(SAMPLE_ENVS.length * 3);
    expect(all.envs.map((e: { env_id: string }) => e.env_id)).toEqual([...SAMPLE_ENVS].sort());
    const guess = all.envs.find((e: { env_id: string }) => e.env_id === 'game:GuessTheNumber-v0-easy');
    expect(guess).toMatchObject({ episodes: 3, success_rate: 1 });
    const failed = await get('/api/runs/search/episodes?success=no&sort=return&desc=1');
    expect(failed.rows.every((r: { success: boolean }) => !r.success)).toBe(true);
    const rets = failed.rows.map((r: { return: number }) => r.return);
    expect(rets).toEqual([...rets].sort((a, b) => b - a));
    const page = await get('/api/runs/search/episodes?limit=5&offset=5&sort=line');
    expect(page.rows.map((r: { line: number }) => r.line)).toEqual([6, 7, 8, 9, 10]);
    const text = await get('/api/runs/search/episodes?q=sudoku');
    expect(text.total).toBe(3);
    // The eval folder's summary.json comes along (settings, completeness).
    expect(all.summary).toMatchObject({ model: 'mock-search', complete: true, settings: { max_turns: 8 } });
  });

  it('returns one episode in full, exactly as eval wrote it', async () => {
    const lines = readFileSync(join(runs.search, 'transcripts.jsonl'), 'utf8').trim().split('\n');
    const ep = await get('/api/runs/search/episodes/4');
    expect(ep.record).toEqual(JSON.parse(lines[3]));
    expect([ep.prev, ep.next]).toEqual([3, 5]);
    const first = await get('/api/runs/search/episodes/1');
    expect([first.prev, first.next]).toEqual([undefined, 2]);
    const res = await fetch(`${ui.url}/api/runs/search/episodes/99`);
    expect(res.status).toBe(404);
  });

  it('reads the benchmark curves', async () => {
    const b = await get('/api/runs/benchmark_algorithms/benchmark');
    const want = committedBenchmarkCurves();
    expect(b.tasks.map((t: { name: string }) => t.name)).toEqual(want.tasks);
    const ran = b.tasks.find((t: { name: string }) => want.curves[t.name] > 0);
    expect(ran.curves).toHaveLength(want.curves[ran.name]);
    expect([...new Set(ran.curves.map((c: { algorithm: string }) => c.algorithm))]).toEqual(want.algorithms[ran.name]);
    expect(ran.metrics).toEqual(['success', 'return', 'turns']);
  });

  it('compares two runs on the same env ids and seeds', async () => {
    const c = await get('/api/compare?a=search&b=linear');
    expect(c.pairs).toHaveLength(SAMPLE_ENVS.length * 3);
    expect(c.only_a + c.only_b).toBe(0);
    const guess = c.pairs.filter((p: { env_id: string }) => p.env_id === 'game:GuessTheNumber-v0-easy');
    // Binary search opens with 5 (range 1–10), counting up with 1: they part on the first reply.
    expect(guess.map((p: { divergence: unknown }) => p.divergence)).toEqual([{ turn: 1, kind: 'action' }, { turn: 1, kind: 'action' }, { turn: 1, kind: 'action' }]);
    const mines = c.pairs.filter((p: { env_id: string }) => p.env_id === 'game:Minesweeper-v0-easy');
    // Same first two reveals in both runs; "linear" then writes prose on turn 3.
    expect(mines.every((p: { divergence: { turn: number } | null }) => p.divergence === null || p.divergence.turn >= 3)).toBe(true);
  });
});

describe('guards', () => {
  it('answers only to its own Host (no DNS rebinding)', async () => {
    const { port } = new URL(ui.url);
    expect(await rawRequest('/api/runs', { host: `127.0.0.1:${port}` })).toBe(200);
    expect(await rawRequest('/api/runs', { host: `localhost:${port}` })).toBe(200);
    expect(await rawRequest('/api/runs', { host: `evil.example:${port}` })).toBe(421);
  });

  it('refuses cross-origin and non-JSON POSTs', async () => {
    const { port } = new URL(ui.url);
    const body = JSON.stringify({ path: dir });
    expect(await rawRequest('/api/runs', { host: `127.0.0.1:${port}`, origin: 'http://evil.example', 'content-type': 'application/json' }, 'POST', body)).toBe(403);
    expect(await rawRequest('/api/runs', { host: `127.0.0.1:${port}`, 'content-type': 'text/plain' }, 'POST', body)).toBe(415);
  });

  it('serves the app and nothing outside its folder', async () => {
    const page = await fetch(`${ui.url}/`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toMatch(/<script type="module"[^>]*src="\.\/assets\/index-[\w-]+\.js"/);
    // Dot segments, raw or encoded, never leave the app folder (the app's page comes back instead).
    for (const path of ['/../../package.json', '/%2e%2e/%2e%2e/package.json', '/assets/..%2f..%2f..%2fpackage.json']) {
      const r = await rawResponse(path, { host: new URL(ui.url).host });
      expect(r.text).not.toMatch(/"name": "@gem-ts\/core"/);
    }
    expect((await fetch(`${ui.url}/assets/nope.js`)).status).toBe(404);
  });
});

describe('play', () => {
  async function until(id: string, pred: (s: any) => boolean): Promise<any> {
    let since = -1;
    for (let i = 0; i < 100; i++) {
      const s = await get(`/api/play/${id}?since=${since}&wait=2000`);
      if (pred(s)) return s;
      since = s.version;
    }
    throw new Error('play session never reached the state');
  }

  it('a person plays GuessTheNumber to a win; the episode is saved as an eval transcript', async () => {
    const { body } = await post<{ id: string }>('/api/play', { env_id: 'game:GuessTheNumber-v0-hard', seed: 3, player: 'human' });
    let s = await until(body.id, (x) => x.waiting_for_human);
    expect(s.messages[0].content).toMatch(/between 1 and 50/);
    // Not our turn yet after sending: a second action is refused.
    while (!s.done) {
      const guess = binarySearchGuess(s.messages);
      expect((await post(`/api/play/${body.id}/act`, { action: `\\boxed{${guess}}` })).status).toBe(200);
      s = await until(body.id, (x) => x.done || x.waiting_for_human);
    }
    expect((await post(`/api/play/${body.id}/act`, { action: '\\boxed{1}' })).status).toBe(409);
    expect(s.success).toBe(true);
    expect(s.steps.at(-1).reward).toBe(1);
    expect(s.saved.run).toBe('play');
    // The saved line is a normal transcript record: eval's own reader loads it.
    const { records } = await loadTranscripts(join(dir, 'play', 'transcripts.jsonl'), 'ui-play:human:human');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ env_id: 'game:GuessTheNumber-v0-hard', seed: 3, model: 'human', success: true, num_turns: s.steps.length });
    const ep = await get(`/api/runs/${s.saved.run}/episodes/${s.saved.line}`);
    expect(ep.record.turns.map((t: { reply: string }) => t.reply)).toEqual(s.steps.map((x: { action: string }) => x.action));
  });

  it('a model behind an OpenAI-compatible endpoint plays while the page follows', async () => {
    const mock = await startMockServer({ policy: binarySearchPolicy });
    try {
      const { body } = await post<{ id: string }>('/api/play', { env_id: 'game:GuessTheNumber-v0-hard', seed: 5, player: 'model', base_url: mock.url, model: 'fake-model', temperature: 0 });
      const s = await until(body.id, (x) => x.done);
      expect(s.error).toBeUndefined();
      expect(s.success).toBe(true);
      expect(mock.requests.length).toBe(s.steps.length);
      expect(mock.requests[0].body).toMatchObject({ model: 'fake-model', temperature: 0 });
      const ep = await get(`/api/runs/${s.saved.run}/episodes/${s.saved.line}`);
      expect(ep.record.model).toBe('fake-model');
    } finally {
      await mock.close();
    }
  });

  it('an env that needs make options (openenv:Remote-v0 and its url) is played by a model', async () => {
    const catalog = builtinCatalog();
    const openenv = new OpenEnvServer({ catalog: catalog.envs, wrappers: catalog.wrappers, host: '127.0.0.1', port: 0 });
    const root = await openenv.start();
    const mock = await startMockServer({ policy: binarySearchPolicy });
    try {
      const url = `${root}/envs/game:GuessTheNumber-v0-hard`;
      const { body } = await post<{ id: string }>('/api/play', { env_id: 'openenv:Remote-v0', options: { url }, seed: 5, player: 'model', base_url: mock.url, model: 'fake-model' });
      const s = await until(body.id, (x) => x.done);
      expect(s.error).toBeUndefined();
      expect(s.success).toBe(true);
      expect(s.messages[0].content).toMatch(/between 1 and 50/);
      // The same seed played directly: the same replies earn the same rewards.
      const direct = make('game:GuessTheNumber-v0-hard');
      await direct.reset({ seed: 5 });
      const rewards = [];
      for (const step of s.steps) rewards.push((await direct.step(step.action)).reward);
      await direct.close();
      expect(s.steps.map((x: { reward: number }) => x.reward)).toEqual(rewards);
      expect(mock.requests.length).toBe(s.steps.length);
    } finally {
      await mock.close();
      await openenv.close();
    }
  });

  it('bad play requests get clear errors', async () => {
    expect((await post('/api/play', { env_id: 'game:NoSuchGame-v0', seed: 0 })).body.error).toMatch(/not registered/);
    expect((await post('/api/play', { env_id: 'openenv:Remote-v0', seed: 0, options: [1] })).body.error).toMatch(/options must be a JSON object/);
    expect((await post('/api/play', { env_id: 'openenv:Remote-v0', seed: 0 })).body.error).toMatch(/url/);
    expect((await post('/api/play', { env_id: 'game:GuessTheNumber-v0', seed: 0, options: { bogus: 1 } })).body.error).toMatch(/unknown option 'bogus'/);
    expect((await post('/api/play', { env_id: 'game:GuessTheNumber-v0', seed: 0, player: 'model' })).body.error).toMatch(/needs base_url and model/);
    const unreachable = await post<{ id: string }>('/api/play', { env_id: 'game:GuessTheNumber-v0', seed: 0, player: 'model', base_url: 'http://127.0.0.1:9/v1', model: 'm' });
    const s = await until(unreachable.body.id, (x) => x.done);
    expect(s.error).toBeTruthy();
    expect(s.saved).toBeUndefined();
  });
});
