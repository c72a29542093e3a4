/**
 * Play: pick an env id, a seed and (optionally) its make options, then play by hand (type a move, or
 * click a board cell to put its row and column in the box) or let a model behind an OpenAI-compatible
 * endpoint play while the page follows each turn. The finished episode is saved as a transcript and opens in the episode view.
 */
import { api, type PlayState } from './api.ts';
import { clear, h } from './dom.ts';
import { fmt } from './format.ts';
import type { Route } from './main.ts';
import { boardsSoFar, conversation } from './render.ts';

const FORM_KEY = 'gem-ts-ui-play';

function field(label: string, input: HTMLElement): HTMLElement {
  return h('label', { class: 'field' }, h('span', {}, label), input);
}

export async function playView(root: HTMLElement, route: Route): Promise<() => void> {
  const { envs } = await api<{ envs: string[] }>('envs');
  const saved = JSON.parse(localStorage.getItem(FORM_KEY) ?? '{}') as Record<string, string>;
  const val = (k: string, d: string) => route.query.get(k) ?? saved[k] ?? d;
  const envInput = h('input', { name: 'env_id', list: 'env-ids', value: val('env_id', 'game:GuessTheNumber-v0-easy'), size: 34, required: true });
  const seedInput = h('input', { name: 'seed', type: 'number', value: val('seed', '0'), step: 1 });
  // The env's make options, e.g. {"url": "http://host:8001"} for openenv:Remote-v0.
  const optionsInput = h('input', { name: 'options', value: val('options', ''), size: 28, placeholder: '{"url": "…"} (optional)' });
  const playerSel = h('select', { name: 'player' }, h('option', { value: 'human' }, 'me (by hand)'), h('option', { value: 'model' }, 'a model (OpenAI-compatible endpoint)'));
  playerSel.value = val('player', 'human');
  const baseUrl = h('input', { name: 'base_url', value: val('base_url', 'http://localhost:8000/v1'), size: 34 });
  const model = h('input', { name: 'model', value: val('model', ''), size: 24 });
  const apiKey = h('input', { name: 'api_key', type: 'password', value: '', size: 16, placeholder: 'optional' });
  const temp = h('input', { name: 'temperature', type: 'number', step: 0.1, value: val('temperature', ''), placeholder: 'server default' });
  const maxTok = h('input', { name: 'max_tokens', type: 'number', value: val('max_tokens', ''), placeholder: 'server default' });
  const delay = h('input', { name: 'delay_ms', type: 'number', value: val('delay_ms', '500'), step: 100 });
  const modelFields = h('div', { class: 'model-fields' }, field('endpoint', baseUrl), field('model', model), field('API key', apiKey), field('temperature', temp), field('max tokens', maxTok), field('pause between turns (ms)', delay));
  const formMsg = h('div', { class: 'form-msg' });
  const syncPlayer = () => (modelFields.hidden = playerSel.value !== 'model');
  playerSel.addEventListener('change', syncPlayer);
  syncPlayer();
  const game = h('div', { class: 'play-game' });
  let session: string | undefined;
  let alive = true;

  const form = h(
    'form',
    {
      class: 'play-form',
      onsubmit: (e: Event) => {
        e.preventDefault();
        formMsg.textContent = '';
        const num = (el: HTMLInputElement) => (el.value.trim() === '' ? undefined : Number(el.value));
        const rawOptions = optionsInput.value.trim();
        let options: unknown;
        try {
          options = rawOptions ? JSON.parse(rawOptions) : undefined;
        } catch {
          formMsg.textContent = 'options must be JSON, e.g. {"url": "http://127.0.0.1:8001"}';
          formMsg.className = 'form-msg error';
          return;
        }
        const body = {
          env_id: envInput.value.trim(),
          seed: Number(seedInput.value || 0),
          options,
          player: playerSel.value,
          base_url: baseUrl.value.trim(),
          model: model.value.trim(),
          api_key: apiKey.value,
          temperature: num(temp),
          max_tokens: num(maxTok),
          delay_ms: num(delay),
        };
        localStorage.setItem(FORM_KEY, JSON.stringify({ ...body, options: rawOptions, api_key: undefined }));
        if (session) void api(`play/${session}/stop`, {}).catch(() => undefined);
        api<{ id: string }>('play', body)
          .then((r) => {
            session = r.id;
            void follow(r.id);
          })
          .catch((err: Error) => {
            formMsg.textContent = err.message;
            formMsg.className = 'form-msg error';
          });
      },
    },
    h('div', { class: 'row' }, field('env id', envInput), field('seed', seedInput), field('options (JSON)', optionsInput), field('player', playerSel), h('button', { type: 'submit', class: 'primary' }, 'Start')),
    modelFields,
    formMsg,
    h('datalist', { id: 'env-ids' }, ...envs.map((e) => h('option', { value: e }))),
  );
  clear(root, h('h1', {}, 'Play'), form, game);

  async function follow(id: string): Promise<void> {
    let since = -1;
    while (alive && session === id) {
      let st: PlayState;
      try {
        st = await api<PlayState>(`play/${id}?since=${since}`);
      } catch (e) {
        clear(game, h('div', { class: 'notice error' }, (e as Error).message));
        return;
      }
      if (!alive || session !== id) return;
      since = st.version;
      drawGame(st);
      if (st.done) return;
    }
  }

  function drawGame(st: PlayState): void {
    const last = [...st.messages].reverse().find((m) => m.role === 'user');
    const lastStep = st.steps[st.steps.length - 1];
    const screen = st.done && lastStep ? lastStep.observation : (last?.content ?? '');
    // One screen per turn so far; the last is what the player sees now (its step's answer included).
    const history = st.steps.map((s) => s.observation);
    const board = boardsSoFar(st.done ? history : [...history.slice(0, -1), screen]);
    const input = h('input', { name: 'action', class: 'action-input', placeholder: 'your move (what goes in the box)', autocomplete: 'off', size: 30 });
    const boxIt = h('input', { type: 'checkbox', name: 'box', checked: true });
    const send = (e?: Event) => {
      e?.preventDefault();
      const raw = input.value.trim();
      if (!raw) return;
      const action = boxIt.checked && !raw.includes('\\boxed{') ? `\\boxed{${raw}}` : raw;
      input.disabled = true;
      api(`play/${st.id}/act`, { action }).catch((err: Error) => {
        input.disabled = false;
        clear(game.querySelector('.act-msg')!, err.message);
      });
    };
    // Clicking a cell of a labelled board writes "row col" into the move box (the common move shape).
    board?.addEventListener('click', (e) => {
      const td = (e.target as HTMLElement).closest('td');
      const tr = td?.closest('tr');
      const label = tr?.querySelector('th')?.textContent?.replace(/^R/, '');
      const table = td?.closest('table');
      if (!td || !tr || !table || label === undefined) return;
      const colHead = table.querySelectorAll('thead th')[Array.from(tr.children).indexOf(td)]?.textContent?.replace(/^C/, '');
      if (colHead === undefined) return;
      // Keep a leading word ("reveal 2 3") and a trailing value ("2 3 7"); replace the row and column.
      const words = input.value.trim().split(/\s+/).filter(Boolean);
      const lead = words.filter((w) => !/^\d+$/.test(w));
      const nums = words.filter((w) => /^\d+$/.test(w));
      input.value = [...lead, Number(label), Number(colHead), ...nums.slice(2)].join(' ');
      input.focus();
    });
    const status = st.done
      ? h(
          'div',
          { class: `result ${st.success ? 'won' : 'lost'}` },
          st.error ? `Stopped: ${st.error}` : `${st.success ? 'Success' : 'Episode over'} — return ${fmt(st.return)} in ${st.steps.length} turns.`,
          st.saved ? [' Saved as a transcript: ', h('a', { href: `#/episode/${encodeURIComponent(st.saved.run)}/${st.saved.line}`, class: 'open-saved' }, 'open it in the viewer')] : null,
        )
      : h('div', { class: 'result' }, st.waiting_for_human ? 'Your move.' : st.player === 'model' ? `${st.model} is thinking…` : '…');
    clear(
      game,
      h('div', { class: 'play-head' }, h('h2', {}, `${st.env_id} · seed ${st.seed}`), h('span', { class: 'muted' }, st.player === 'model' ? `played by ${st.model}` : 'played by you'), st.done ? null : h('button', { type: 'button', onclick: () => void api(`play/${st.id}/stop`, {}) }, 'Stop')),
      status,
      h(
        'div',
        { class: 'turn-cols' },
        h(
          'div',
          { class: 'col' },
          board ? h('section', { class: 'card' }, h('h3', {}, 'Board'), board) : null,
          h('section', { class: 'card' }, h('h3', {}, st.done ? 'Last answer' : 'What the player sees now'), h('pre', { class: 'raw observation' }, screen)),
          st.waiting_for_human
            ? h('form', { class: 'act', onsubmit: send }, input, h('label', {}, boxIt, ' put it in \\boxed{}'), h('button', { type: 'submit', class: 'primary' }, 'Send'), h('div', { class: 'act-msg' }))
            : null,
        ),
        h(
          'div',
          { class: 'col' },
          h(
            'section',
            { class: 'card' },
            h('h3', {}, 'Turns'),
            h(
              'table',
              { class: 'grid-table steps' },
              h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'action'), h('th', {}, 'reward'), h('th', {}, 'answer'))),
              h('tbody', {}, ...st.steps.map((s) => h('tr', {}, h('td', { class: 'num' }, s.turn), h('td', {}, h('code', {}, s.action)), h('td', { class: 'num' }, fmt(s.reward)), h('td', { class: 'small' }, s.observation)))),
            ),
          ),
          h('details', { class: 'card' }, h('summary', {}, 'conversation so far'), conversation(st.messages)),
        ),
      ),
    );
    if (st.waiting_for_human) input.focus();
  }

  return () => {
    alive = false;
  };
}
