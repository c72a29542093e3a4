/**
 * One episode, turn by turn: what the model saw (raw text, the chat messages, the chat template),
 * the board as a grid when the text holds one, the reply with its parsed part marked, the reward,
 * flags and info of each turn, and the final observation. ←/→ step through the turns.
 */
import { api, type EpisodeRecord, type TurnRecord } from './api.ts';
import { clear, h, notices, type Notice } from './dom.ts';
import { fmt } from './format.ts';
import { setQuery, type Route } from './main.ts';
import { boardsSoFar, conversation, parsedLabel, rawText, replyView } from './render.ts';
import { messagesAt, type Message } from './turnParts.ts';

const KNOWN = new Set([
  'version', 'env_id', 'seed', 'model', 'mode', 'run_key', 'system', 'turns', 'final_observation', 'num_turns', 'return', 'env_return',
  'success', 'format_error', 'ended_by', 'terminated', 'truncated', 'usage', 'duration_ms',
]);

type ObsTab = 'raw' | 'chat' | 'template';

let templateNames: Promise<{ names: string[]; default: string }> | undefined;

/** The turn's prompt through a chat template of the server's (ChatML, Qwen, Llama 3, the model's own). */
function templateView(messages: Message[], q: URLSearchParams): HTMLElement {
  const out = rawText('…', 'template');
  const pick = h('select', { name: 'template' });
  const show = () => {
    q.set('template', pick.value);
    setQuery(q);
    api<{ text: string }>('chat-template', { name: pick.value, messages })
      .then((r) => (out.textContent = r.text))
      .catch((e: Error) => (out.textContent = `(${e.message})`));
  };
  pick.addEventListener('change', show);
  templateNames ??= api<{ names: string[]; default: string }>('chat-templates');
  void templateNames.then((t) => {
    const want = q.get('template') ?? t.default;
    clear(pick, ...t.names.map((n) => h('option', { value: n, selected: n === want }, n)));
    show();
  });
  return h('div', {}, h('label', { class: 'template-pick' }, 'template ', pick), out);
}

function card(title: string, ...body: (Node | string | null)[]): HTMLElement {
  return h('section', { class: 'card' }, h('h3', {}, title), ...body);
}

function flags(t: TurnRecord): HTMLElement {
  const f = (on: boolean, label: string, cls: string) => (on ? h('span', { class: `badge ${cls}` }, label) : null);
  return h('div', { class: 'flags' }, f(t.terminated, 'terminated', 'neutral'), f(t.truncated, 'truncated', 'warn'), f(t.tool, 'tool call', 'neutral'), f(t.format_error, 'format error', 'bad'));
}

export async function episodeView(root: HTMLElement, route: Route): Promise<() => void> {
  const [, runId, lineText] = route.parts;
  const data = await api<{ run: { id: string; name: string }; line: number; prev?: number; next?: number; record: EpisodeRecord; notices: Notice[] }>(
    `runs/${encodeURIComponent(runId)}/episodes/${encodeURIComponent(lineText)}`,
  );
  const ep = data.record;
  // A newer format may rename or drop turn fields: show what is there rather than fail.
  const turns: TurnRecord[] = (Array.isArray(ep.turns) ? ep.turns : []).map((t) => ({
    ...t,
    user: typeof t?.user === 'string' ? t.user : '',
    reply: typeof t?.reply === 'string' ? t.reply : '',
    reward: typeof t?.reward === 'number' ? t.reward : 0,
    info: t?.info && typeof t.info === 'object' ? t.info : {},
  }));
  ep.turns = turns;
  const q = new URLSearchParams(route.query);
  // Turn index 0..n-1, and n for the end of the episode (final observation).
  let cur = Math.min(turns.length, Math.max(0, Number(q.get('turn') ?? 1) - 1));
  let tab: ObsTab = (q.get('view') as ObsTab) || 'raw';

  const extra = Object.fromEntries(Object.entries(ep).filter(([k]) => !KNOWN.has(k)));
  const header = h(
    'div',
    { class: 'episode-head' },
    h(
      'div',
      { class: 'episode-nav' },
      h('a', { href: `#/run/${encodeURIComponent(data.run.id)}`, class: 'back' }, `← ${data.run.name}`),
      data.prev ? h('a', { href: `#/episode/${encodeURIComponent(data.run.id)}/${data.prev}`, class: 'prev-episode' }, '‹ previous episode') : null,
      data.next ? h('a', { href: `#/episode/${encodeURIComponent(data.run.id)}/${data.next}`, class: 'next-episode' }, 'next episode ›') : null,
    ),
    h('h1', {}, `${ep.env_id} `, h('span', { class: 'muted' }, `seed ${ep.seed}`)),
    h(
      'div',
      { class: 'facts' },
      h('span', { class: `badge ${ep.success ? 'ok' : 'bad'}` }, ep.success ? 'success' : 'no success'),
      ep.format_error ? h('span', { class: 'badge warn' }, 'format error') : null,
      h('span', {}, `return ${fmt(Number(ep.return))}`),
      h('span', {}, `${turns.length} turns`),
      h('span', {}, `ended by ${ep.ended_by ?? '?'}`),
      h('span', {}, `model ${ep.model ?? '?'}`),
      h('span', {}, `mode ${ep.mode ?? '?'}`),
      ep.usage ? h('span', {}, `${ep.usage.total_tokens} tokens`) : null,
      typeof ep.duration_ms === 'number' ? h('span', {}, `${(ep.duration_ms / 1000).toFixed(1)} s`) : null,
      h('span', { class: 'muted' }, `line ${data.line}`),
    ),
  );
  const strip = h('div', { class: 'turn-strip', role: 'tablist' });
  const body = h('div', { class: 'turn-body' });
  clear(root, header, notices(data.notices), strip, body, Object.keys(extra).length ? h('details', { class: 'card' }, h('summary', {}, 'other fields (not in this viewer’s format)'), rawText(JSON.stringify(extra, null, 2))) : null);

  const go = (i: number) => {
    cur = Math.max(0, Math.min(turns.length, i));
    q.set('turn', String(cur + 1));
    setQuery(q);
    draw();
  };

  function drawStrip(): void {
    const maxAbs = Math.max(1e-9, ...turns.map((t) => Math.abs(t.reward)));
    clear(
      strip,
      h('button', { type: 'button', class: 'step prev', disabled: cur === 0, onclick: () => go(cur - 1), title: 'previous turn (←)' }, '‹'),
      ...turns.map((t, i) =>
        h(
          'button',
          {
            type: 'button',
            role: 'tab',
            class: `turn-chip${i === cur ? ' current' : ''}${t.format_error ? ' fe' : ''}`,
            'data-turn': i + 1,
            'aria-selected': i === cur ? 'true' : 'false',
            onclick: () => go(i),
            title: `turn ${i + 1}: reward ${t.reward}`,
          },
          h('span', { class: 'n' }, i + 1),
          h('span', { class: `r ${t.reward > 0 ? 'pos' : t.reward < 0 ? 'neg' : 'zero'}` }, fmt(t.reward, 2)),
          h('span', { class: 'bar', style: `width:${Math.round((Math.abs(t.reward) / maxAbs) * 100)}%` }),
        ),
      ),
      h('button', { type: 'button', class: `turn-chip end${cur === turns.length ? ' current' : ''}`, 'data-turn': 'end', onclick: () => go(turns.length) }, 'end'),
      h('button', { type: 'button', class: 'step next', disabled: cur >= turns.length, onclick: () => go(cur + 1), title: 'next turn (→)' }, '›'),
    );
  }

  function observationCard(t: number): HTMLElement {
    const tabs: [ObsTab, string][] = [['raw', 'raw'], ['chat', 'chat messages'], ['template', 'chat template']];
    const text = turns[t].user;
    const content =
      tab === 'chat' ? conversation(messagesAt(ep, t)) : tab === 'template' ? templateView(messagesAt(ep, t), q) : rawText(text, 'observation');
    return h(
      'section',
      { class: 'card obs' },
      h(
        'div',
        { class: 'card-head' },
        h('h3', {}, `Observation · turn ${t + 1}`),
        h('div', { class: 'tabs' }, ...tabs.map(([k, label]) => h('button', { type: 'button', class: `tab${tab === k ? ' current' : ''}`, 'data-view': k, onclick: () => { tab = k; q.set('view', k); setQuery(q); draw(); } }, label))),
      ),
      content,
    );
  }

  function draw(): void {
    drawStrip();
    if (cur === turns.length) {
      const done = turns.reduce((s, t) => s + t.reward, 0);
      const finalBoard = boardsSoFar([...turns.map((t) => t.user), ep.final_observation ?? '']);
      clear(
        body,
        h(
          'div',
          { class: 'turn-cols' },
          h('div', { class: 'col' }, card('Final observation', rawText(ep.final_observation ?? '', 'observation'))),
          h(
            'div',
            { class: 'col' },
            finalBoard ? card('Board', finalBoard) : null,
            card('Episode', h('dl', { class: 'kv' }, h('dt', {}, 'return'), h('dd', {}, fmt(done)), h('dt', {}, 'env return'), h('dd', {}, fmt(Number(ep.env_return))), h('dt', {}, 'success'), h('dd', {}, String(ep.success)), h('dt', {}, 'ended by'), h('dd', {}, String(ep.ended_by)), h('dt', {}, 'terminated / truncated'), h('dd', {}, `${ep.terminated} / ${ep.truncated}`))),
          ),
        ),
      );
      return;
    }
    const t = turns[cur];
    const before = turns.slice(0, cur + 1).reduce((s, x) => s + x.reward, 0);
    const board = boardsSoFar(turns.slice(0, cur + 1).map((x) => x.user));
    clear(
      body,
      h(
        'div',
        { class: 'turn-cols' },
        h('div', { class: 'col' }, observationCard(cur), board ? card('Board', board) : null),
        h(
          'div',
          { class: 'col' },
          card(`Action · turn ${cur + 1}`, parsedLabel(t.reply, t.tool), replyView(t.reply, t.tool), t.reasoning ? h('details', {}, h('summary', {}, 'reasoning'), rawText(t.reasoning)) : null),
          card(
            'Reward',
            h('div', { class: 'reward-line' }, h('span', { class: `big ${t.reward > 0 ? 'pos' : t.reward < 0 ? 'neg' : ''}` }, fmt(t.reward)), h('span', { class: 'muted' }, ` return so far ${fmt(before)}`)),
            flags(t),
            h(
              'dl',
              { class: 'kv' },
              h('dt', {}, 'finish reason'), h('dd', {}, String(t.finish_reason)),
              h('dt', {}, 'latency'), h('dd', {}, `${t.latency_ms} ms${t.attempts > 1 ? ` (${t.attempts} attempts)` : ''}`),
              t.usage ? [h('dt', {}, 'tokens'), h('dd', {}, `${t.usage.prompt_tokens} prompt + ${t.usage.completion_tokens} completion`)] : null,
            ),
          ),
          card('Info', rawText(JSON.stringify(t.info ?? {}, null, 2), 'info')),
        ),
      ),
    );
  }

  const onKey = (e: KeyboardEvent) => {
    if ((e.target as HTMLElement).closest('input, textarea, select')) return;
    if (e.key === 'ArrowRight') go(cur + 1);
    else if (e.key === 'ArrowLeft') go(cur - 1);
  };
  window.addEventListener('keydown', onKey);
  draw();
  return () => window.removeEventListener('keydown', onKey);
}
