/**
 * Compare two runs on the same env ids and seeds: a table of the pairs with both outcomes and the
 * first turn where they diverge; a pair opens side by side, the turns before the divergence folded.
 */
import { api, type EpisodeRecord, type EpisodeSummary, type RunInfo } from './api.ts';
import type { ComparedPair } from '../../src/ui/apiTypes.ts';
import { clear, h } from './dom.ts';
import { fmt } from './format.ts';
import { setQuery, type Route } from './main.ts';
import { replyView, rawText } from './render.ts';

type Pair = ComparedPair;

interface Comparison {
  a: { id: string; name: string };
  b: { id: string; name: string };
  pairs: Pair[];
  only_a: number;
  only_b: number;
}

const KIND_TEXT: Record<string, string> = {
  observation: 'observations differ',
  action: 'actions differ',
  reward: 'rewards differ',
  length: 'one episode is longer',
  final_observation: 'final observations differ',
};

function outcome(e: EpisodeSummary): HTMLElement {
  return h('span', {}, h('span', { class: `badge ${e.success ? 'ok' : 'bad'}` }, e.success ? 'yes' : 'no'), ` ${fmt(e.return)} · ${e.num_turns}t`);
}

export async function compareView(root: HTMLElement, route: Route): Promise<undefined> {
  const { runs } = await api<{ runs: RunInfo[] }>('runs');
  const evals = runs.filter((r) => r.kind === 'eval');
  const q = new URLSearchParams(route.query);
  const pickA = h('select', { name: 'a' }, ...evals.map((r, i) => h('option', { value: r.id, selected: (q.get('a') ?? evals[0]?.id) === r.id || (!q.get('a') && i === 0) }, r.name)));
  const pickB = h('select', { name: 'b' }, ...evals.map((r, i) => h('option', { value: r.id, selected: (q.get('b') ?? evals[1]?.id) === r.id || (!q.get('b') && i === 1) }, r.name)));
  const onlyDiff = h('input', { type: 'checkbox', name: 'only_diff', checked: q.get('diff') === '1' });
  const result = h('div', { class: 'compare-result' });
  const detail = h('div', { class: 'compare-detail' });
  clear(
    root,
    h('h1', {}, 'Compare two runs'),
    evals.length < 2 ? h('p', { class: 'empty' }, 'Open two eval runs to compare them (gem-ts ui runs/a runs/b, or open paths on the Runs page).') : null,
    h(
      'form',
      {
        class: 'filters',
        onsubmit: (e: Event) => {
          e.preventDefault();
          q.set('a', pickA.value);
          q.set('b', pickB.value);
          q.delete('pair');
          setQuery(q);
          void load();
        },
      },
      h('label', {}, 'A ', pickA),
      h('label', {}, 'B ', pickB),
      h('button', { type: 'submit' }, 'Compare'),
      h('label', {}, onlyDiff, ' only pairs that differ'),
    ),
    result,
    detail,
  );
  onlyDiff.addEventListener('change', () => {
    if (onlyDiff.checked) q.set('diff', '1');
    else q.delete('diff');
    setQuery(q);
    void load();
  });

  let data: Comparison | undefined;
  async function load(): Promise<void> {
    if (!q.get('a') || !q.get('b')) return;
    if (!data || data.a.id !== q.get('a') || data.b.id !== q.get('b')) {
      clear(result, h('p', { class: 'muted' }, 'comparing…'));
      data = await api<Comparison>(`compare?a=${encodeURIComponent(q.get('a')!)}&b=${encodeURIComponent(q.get('b')!)}`);
    }
    const d = data;
    const diverged = d.pairs.filter((p) => p.divergence).length;
    const shown = onlyDiff.checked ? d.pairs.filter((p) => p.divergence) : d.pairs;
    const wins = (f: (p: Pair) => boolean) => d.pairs.filter(f).length;
    clear(
      result,
      h(
        'div',
        { class: 'compare-summary' },
        h('span', {}, `${d.pairs.length} episodes in both`),
        h('span', {}, `${diverged} diverge`),
        h('span', {}, `${d.pairs.length - diverged} identical`),
        h('span', {}, `success: A ${wins((p) => p.a.success)} · B ${wins((p) => p.b.success)} · only A ${wins((p) => p.a.success && !p.b.success)} · only B ${wins((p) => p.b.success && !p.a.success)}`),
        d.only_a || d.only_b ? h('span', { class: 'muted' }, `not paired: ${d.only_a} only in A, ${d.only_b} only in B`) : null,
      ),
      h(
        'table',
        { class: 'grid-table compare-table' },
        h('thead', {}, h('tr', {}, ...['env id', 'seed', `A: ${d.a.name}`, `B: ${d.b.name}`, 'first divergence'].map((c) => h('th', {}, c)))),
        h(
          'tbody',
          {},
          ...shown.map((p) =>
            h(
              'tr',
              { class: `clickable${p.divergence ? ' diverged' : ''}`, 'data-key': `${p.env_id}/${p.seed}`, onclick: () => { q.set('pair', `${p.a.line}:${p.b.line}`); setQuery(q); void showPair(p); } },
              h('td', {}, p.env_id),
              h('td', { class: 'num' }, p.seed),
              h('td', {}, outcome(p.a)),
              h('td', {}, outcome(p.b)),
              h('td', { class: 'divergence' }, p.divergence ? `turn ${p.divergence.turn}: ${KIND_TEXT[p.divergence.kind] ?? p.divergence.kind}` : 'identical'),
            ),
          ),
        ),
      ),
    );
    const pair = q.get('pair');
    const p = pair ? d.pairs.find((x) => `${x.a.line}:${x.b.line}` === pair) : undefined;
    if (p) await showPair(p);
    else clear(detail);
  }

  async function showPair(p: Pair): Promise<void> {
    const d = data!;
    const get = (run: string, line: number) => api<{ record: EpisodeRecord }>(`runs/${encodeURIComponent(run)}/episodes/${line}`).then((r) => r.record);
    const [a, b] = await Promise.all([get(d.a.id, p.a.line), get(d.b.id, p.b.line)]);
    const div = p.divergence?.turn ?? Math.max(a.turns.length, b.turns.length) + 1;
    const n = Math.max(a.turns.length, b.turns.length);
    const cell = (ep: EpisodeRecord, i: number) => {
      const t = ep.turns[i];
      if (!t) return h('td', { class: 'missing' }, '(no such turn)');
      return h('td', {}, rawText(t.user, 'observation'), replyView(t.reply, t.tool), h('div', { class: 'muted' }, `reward ${fmt(t.reward)}`));
    };
    const rows: HTMLElement[] = [];
    const folded = Math.max(0, Math.min(div - 1, n));
    if (folded > 0) rows.push(h('tr', { class: 'folded' }, h('td', { colspan: 3 }, `turns 1–${folded} are the same in both`)));
    for (let i = folded; i < n; i++) {
      rows.push(h('tr', { class: i + 1 === div ? 'first-divergence' : '', 'data-turn': i + 1 }, h('th', {}, `turn ${i + 1}`), cell(a, i), cell(b, i)));
    }
    rows.push(h('tr', {}, h('th', {}, 'final'), h('td', {}, rawText(a.final_observation)), h('td', {}, rawText(b.final_observation))));
    clear(
      detail,
      h('h2', {}, `${p.env_id} · seed ${p.seed}`, ' ', h('a', { href: `#/episode/${encodeURIComponent(d.a.id)}/${p.a.line}` }, 'open A'), ' · ', h('a', { href: `#/episode/${encodeURIComponent(d.b.id)}/${p.b.line}` }, 'open B')),
      h('table', { class: 'side-by-side' }, h('thead', {}, h('tr', {}, h('th', {}), h('th', {}, `A: ${d.a.name}`), h('th', {}, `B: ${d.b.name}`))), h('tbody', {}, ...rows)),
    );
    detail.querySelector('.first-divergence')?.scrollIntoView({ block: 'nearest' });
  }

  if (!q.get('a') && evals.length >= 2) {
    q.set('a', evals[0].id);
    q.set('b', evals[1].id);
    setQuery(q);
  }
  await load();
  return undefined;
}
