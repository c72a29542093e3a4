/**
 * Runs: the open runs, and for one run either its episodes (eval transcripts: per-env summary,
 * filters, sortable paged table; a row opens the episode) or its learning curves (benchmark results).
 */
import { api, type EnvRow, type EpisodeSummary, type RunInfo } from './api.ts';
import { benchmarkView } from './benchmarkView.ts';
import { clear, h, notices, type Notice } from './dom.ts';
import { fmt, pct } from './format.ts';
import { setQuery, type Route } from './main.ts';
import { rawText } from './render.ts';

interface EpisodePage {
  run: RunInfo;
  progress: { indexing: boolean; bytes_indexed: number; bytes_total: number; episodes: number };
  notices: Notice[];
  envs: EnvRow[];
  models: string[];
  /** The eval folder's summary.json, when there is one. */
  summary?: { complete?: boolean; errors?: { env_id: string; seed: number; code: string; message: string }[]; [k: string]: unknown };
  total: number;
  rows: EpisodeSummary[];
}

const PAGE = 100;

function openPathForm(onOpened: (ids: string[]) => void): HTMLElement {
  const input = h('input', { type: 'text', placeholder: 'path to an eval folder, .jsonl or benchmark .json', name: 'path', size: 40 });
  const msg = h('div', { class: 'form-msg' });
  const form = h(
    'form',
    {
      class: 'open-path',
      onsubmit: (e: Event) => {
        e.preventDefault();
        msg.textContent = '';
        api<{ runs: string[] }>('runs', { path: input.value.trim() })
          .then((r) => onOpened(r.runs))
          .catch((err: Error) => {
            msg.textContent = err.message;
            msg.className = 'form-msg error';
          });
      },
    },
    input,
    h('button', { type: 'submit' }, 'Open'),
    msg,
  );
  return form;
}

function runList(runs: RunInfo[], current?: string): HTMLElement {
  return h(
    'ul',
    { class: 'run-list' },
    ...runs.map((r) =>
      h(
        'li',
        { class: r.id === current ? 'current' : '' },
        h('a', { href: `#/run/${encodeURIComponent(r.id)}`, title: r.path }, r.name),
        h('span', { class: `kind kind-${r.kind}` }, r.kind),
      ),
    ),
  );
}

export async function runsView(root: HTMLElement, route: Route): Promise<(() => void) | undefined> {
  const { runs } = await api<{ runs: RunInfo[] }>('runs');
  let id = route.parts[0] === 'run' ? route.parts[1] : undefined;
  // One run open: show it at once, so an episode is one click away.
  if (!id && runs.length === 1) id = runs[0].id;
  const side = h('aside', { class: 'side' }, h('h2', {}, 'Runs'), runList(runs, id), openPathForm((ids) => (location.hash = `#/run/${encodeURIComponent(ids[0])}`)));
  const main = h('section', { class: 'main' });
  clear(root, h('div', { class: 'two-col' }, side, main));
  if (!id) {
    clear(
      main,
      h('h1', {}, 'Runs'),
      runs.length
        ? h(
            'table',
            { class: 'grid-table runs-table' },
            h('thead', {}, h('tr', {}, h('th', {}, 'run'), h('th', {}, 'kind'), h('th', {}, 'path'))),
            h(
              'tbody',
              {},
              ...runs.map((r) =>
                h(
                  'tr',
                  { class: 'clickable', onclick: () => (location.hash = `#/run/${encodeURIComponent(r.id)}`) },
                  h('td', {}, h('a', { href: `#/run/${encodeURIComponent(r.id)}` }, r.name)),
                  h('td', {}, r.kind),
                  h('td', { class: 'path' }, r.path),
                ),
              ),
            ),
          )
        : h('p', { class: 'empty' }, 'No runs open. Start with gem-ts ui runs/x (an eval --out folder), or open a path on the left.'),
    );
    return undefined;
  }
  const run = runs.find((r) => r.id === id);
  if (!run) {
    clear(main, h('div', { class: 'notice error' }, `No open run '${id}'.`));
    return undefined;
  }
  if (run.kind === 'benchmark') {
    await benchmarkView(main, run);
    return undefined;
  }
  return evalRunView(main, run, route.query);
}

function evalRunView(main: HTMLElement, run: RunInfo, query: URLSearchParams): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let alive = true;
  const q = new URLSearchParams(query);

  const head = h('div', { class: 'run-head' });
  const status = h('div', { class: 'run-status' });
  const noticeBox = h('div');
  const envBox = h('div', { class: 'env-summary' });
  const filters = h('div', { class: 'filters' });
  const table = h('div', { class: 'episodes' });
  clear(main, head, status, noticeBox, envBox, filters, table);
  clear(head, h('h1', {}, run.name), h('div', { class: 'path' }, run.path));

  const set = (k: string, v: string | undefined) => {
    if (v) q.set(k, v);
    else q.delete(k);
    if (k !== 'offset') q.delete('offset');
    setQuery(q);
    void load();
  };

  async function load(): Promise<void> {
    clearTimeout(timer);
    const params = new URLSearchParams(q);
    params.set('limit', String(PAGE));
    const page = await api<EpisodePage>(`runs/${encodeURIComponent(run.id)}/episodes?${params}`);
    if (!alive) return;
    const p = page.progress;
    clear(
      status,
      p.indexing
        ? h('div', { class: 'progress' }, h('progress', { max: p.bytes_total || 1, value: p.bytes_indexed }), ` reading the file: ${(p.bytes_indexed / 2 ** 20).toFixed(1)} of ${(p.bytes_total / 2 ** 20).toFixed(1)} MB, ${p.episodes} episodes so far`)
        : h('div', { class: 'muted' }, `${p.episodes} episodes · ${(p.bytes_total / 2 ** 20).toFixed(2)} MB · models: ${page.models.join(', ') || '–'}`),
    );
    const failed = page.summary?.errors ?? [];
    const runNotices: Notice[] = [
      ...(page.summary?.complete === false
        ? [{ level: 'warning' as const, message: `summary.json marks this run incomplete${failed.length ? `: ${failed.length} episode${failed.length === 1 ? '' : 's'} failed (${failed.slice(0, 3).map((e) => `${e.env_id} seed ${e.seed}: ${e.code} ${e.message}`).join('; ')}${failed.length > 3 ? '; …' : ''})` : ''}. Re-running the same gem-ts eval command resumes it.` }]
        : []),
      ...page.notices,
    ];
    clear(noticeBox, notices(runNotices), page.summary ? h('details', { class: 'run-settings' }, h('summary', {}, 'run settings (summary.json)'), rawText(JSON.stringify({ ...page.summary, errors: undefined }, null, 2))) : null);
    renderEnvs(page.envs);
    renderFilters(page.envs);
    renderTable(page);
    // Keep reading while the index grows (a big file); look again now and then for a run still writing.
    timer = setTimeout(() => void (p.indexing ? load() : recheck(p.bytes_total)), p.indexing ? 400 : 4000);
  }

  /** Redraws only when the file changed size (an eval still appending episodes). */
  async function recheck(bytes: number): Promise<void> {
    const page = await api<EpisodePage>(`runs/${encodeURIComponent(run.id)}/episodes?limit=1`).catch(() => undefined);
    if (!alive) return;
    if (page && page.progress.bytes_total !== bytes) void load();
    else timer = setTimeout(() => void recheck(bytes), 4000);
  }

  function renderEnvs(envs: EnvRow[]): void {
    clear(
      envBox,
      h(
        'table',
        { class: 'grid-table env-table' },
        h('thead', {}, h('tr', {}, ...['env id', 'episodes', 'success', 'mean return', 'mean turns', 'format errors'].map((c) => h('th', {}, c)))),
        h(
          'tbody',
          {},
          ...envs.map((e) =>
            h(
              'tr',
              { class: `clickable${q.get('env') === e.env_id ? ' selected' : ''}`, onclick: () => set('env', q.get('env') === e.env_id ? undefined : e.env_id) },
              h('td', {}, e.env_id),
              h('td', { class: 'num' }, e.episodes),
              h('td', { class: 'num' }, pct(e.success_rate)),
              h('td', { class: 'num' }, fmt(e.mean_return)),
              h('td', { class: 'num' }, fmt(e.mean_turns, 2)),
              h('td', { class: 'num' }, pct(e.format_error_rate)),
            ),
          ),
        ),
      ),
    );
  }

  function select(name: string, label: string, options: [string, string][]): HTMLElement {
    const sel = h('select', { name, onchange: (e: Event) => set(name, (e.target as HTMLSelectElement).value || undefined) }, ...options.map(([v, t]) => h('option', { value: v, selected: (q.get(name) ?? '') === v }, t)));
    return h('label', {}, `${label} `, sel);
  }

  function renderFilters(envs: EnvRow[]): void {
    if (filters.childElementCount) {
      // Keep the text box (and its focus) while typing; refresh only the env choices.
      const envSel = filters.querySelector<HTMLSelectElement>('select[name=env]');
      if (envSel && envSel.options.length === envs.length + 1) return;
    }
    const search = h('input', { type: 'search', name: 'q', placeholder: 'search env, seed, model…', value: q.get('q') ?? '' });
    let debounce: ReturnType<typeof setTimeout> | undefined;
    search.addEventListener('input', () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => set('q', search.value.trim() || undefined), 200);
    });
    clear(
      filters,
      select('env', 'env', [['', 'all'], ...envs.map((e) => [e.env_id, e.env_id] as [string, string])]),
      select('success', 'success', [['', 'all'], ['yes', 'yes'], ['no', 'no']]),
      select('format_error', 'format error', [['', 'all'], ['yes', 'yes'], ['no', 'no']]),
      search,
      h('button', { type: 'button', onclick: () => { for (const k of ['env', 'success', 'format_error', 'q', 'offset']) q.delete(k); clear(filters); set('sort', q.get('sort') ?? undefined); } }, 'clear filters'),
    );
  }

  function renderTable(page: EpisodePage): void {
    const cols: [keyof EpisodeSummary, string][] = [
      ['line', 'line'], ['env_id', 'env id'], ['seed', 'seed'], ['model', 'model'], ['success', 'success'],
      ['return', 'return'], ['num_turns', 'turns'], ['format_error', 'format error'], ['ended_by', 'ended by'],
    ];
    const sort = q.get('sort');
    const desc = q.get('desc') === '1';
    const offset = Number(q.get('offset') ?? 0);
    const link = (e: EpisodeSummary) => `#/episode/${encodeURIComponent(run.id)}/${e.line}`;
    clear(
      table,
      h(
        'table',
        { class: 'grid-table episode-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...cols.map(([k, label]) =>
              h(
                'th',
                {
                  class: `sortable${sort === k ? (desc ? ' desc' : ' asc') : ''}`,
                  'data-sort': k,
                  onclick: () => {
                    if (sort === k) q.set('desc', desc ? '0' : '1');
                    else q.set('desc', '0');
                    set('sort', k);
                  },
                },
                label,
              ),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          ...page.rows.map((e) =>
            h(
              'tr',
              { class: 'clickable', 'data-line': e.line, onclick: () => (location.hash = link(e)) },
              h('td', { class: 'num' }, h('a', { href: link(e) }, e.line)),
              h('td', {}, e.env_id),
              h('td', { class: 'num' }, e.seed),
              h('td', {}, e.model),
              h('td', {}, h('span', { class: `badge ${e.success ? 'ok' : 'bad'}` }, e.success ? 'yes' : 'no')),
              h('td', { class: 'num' }, fmt(e.return)),
              h('td', { class: 'num' }, e.num_turns),
              h('td', {}, e.format_error ? h('span', { class: 'badge warn' }, 'yes') : ''),
              h('td', {}, e.ended_by),
            ),
          ),
        ),
      ),
      page.rows.length ? null : h('p', { class: 'empty' }, 'No episodes match.'),
      h(
        'div',
        { class: 'pager' },
        h('button', { type: 'button', disabled: offset <= 0, onclick: () => set('offset', String(Math.max(0, offset - PAGE))) }, '‹ prev'),
        h('span', { class: 'page-info' }, page.total ? `${offset + 1}–${Math.min(offset + PAGE, page.total)} of ${page.total}` : '0 of 0'),
        h('button', { type: 'button', disabled: offset + PAGE >= page.total, onclick: () => set('offset', String(offset + PAGE)) }, 'next ›'),
      ),
    );
  }

  void load();
  return () => {
    alive = false;
    clearTimeout(timer);
  };
}
