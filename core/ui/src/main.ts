/**
 * The `gem-ts ui` web app: a hash router over four views. Every view reads what it needs from the
 * UI server's JSON API; state that a person would want to link to or go back to (filters, sort, the
 * open turn) lives in the hash.
 */
import './style.css';
import { clear, h } from './dom.ts';
import { compareView } from './compareView.ts';
import { episodeView } from './episodeView.ts';
import { playView } from './playView.ts';
import { runsView } from './runsView.ts';

export interface Route {
  parts: string[];
  query: URLSearchParams;
}

export function parseHash(): Route {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, q = ''] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(q) };
}

/** Replace the query part of the current route (no new history entry for filter typing). */
export function setQuery(query: URLSearchParams, push = false): void {
  const path = location.hash.split('?')[0] || '#/';
  const q = query.toString();
  const next = q ? `${path}?${q}` : path;
  if (push) location.hash = next;
  else history.replaceState(null, '', next);
}

let cleanup: (() => void) | undefined;

async function render(): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  const app = document.getElementById('app')!;
  const route = parseHash();
  const view = route.parts[0] ?? 'runs';
  for (const a of document.querySelectorAll<HTMLAnchorElement>('[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === (view === 'run' || view === 'episode' ? 'runs' : view));
  }
  const root = h('div', { class: `view view-${view}` });
  clear(app, root);
  try {
    if (view === 'episode') cleanup = await episodeView(root, route);
    else if (view === 'compare') cleanup = await compareView(root, route);
    else if (view === 'play') cleanup = await playView(root, route);
    else cleanup = await runsView(root, route);
  } catch (e) {
    clear(root, h('div', { class: 'notice error' }, (e as Error).message));
  }
}

window.addEventListener('hashchange', () => void render());
void render();
