/**
 * The Runs table: episodes filtered, sorted and paged on the server, so the page only ever holds
 * one page of rows however big the transcript is; and the per-env-id summary above it.
 */
import type { EnvRow, EpisodeSummary } from './apiTypes.ts';

export interface EpisodeQuery {
  env?: string;
  /** 'yes' | 'no' */
  success?: string;
  format_error?: string;
  /** Free text matched against env id, seed, model and ended_by. */
  q?: string;
  sort?: keyof EpisodeSummary;
  desc?: boolean;
  offset?: number;
  limit?: number;
}

const SORTABLE = new Set<keyof EpisodeSummary>(['line', 'env_id', 'seed', 'model', 'success', 'return', 'num_turns', 'format_error', 'ended_by']);

export function queryFromParams(p: URLSearchParams): EpisodeQuery {
  const sort = p.get('sort') as keyof EpisodeSummary | null;
  return {
    env: p.get('env') || undefined,
    success: p.get('success') || undefined,
    format_error: p.get('format_error') || undefined,
    q: p.get('q') || undefined,
    sort: sort && SORTABLE.has(sort) ? sort : undefined,
    desc: p.get('desc') === '1',
    offset: Math.max(0, Number(p.get('offset')) || 0),
    limit: Math.min(500, Math.max(1, Number(p.get('limit')) || 100)),
  };
}

export function selectEpisodes(all: readonly EpisodeSummary[], q: EpisodeQuery): { total: number; rows: EpisodeSummary[] } {
  const text = q.q?.toLowerCase();
  const yes = (v: string | undefined, flag: boolean) => v === undefined || (v === 'yes') === flag;
  let rows = all.filter(
    (e) =>
      (!q.env || e.env_id === q.env) &&
      yes(q.success, e.success) &&
      yes(q.format_error, e.format_error) &&
      (!text || `${e.env_id} ${e.seed} ${e.model} ${e.ended_by}`.toLowerCase().includes(text)),
  );
  if (q.sort) {
    const k = q.sort;
    const sign = q.desc ? -1 : 1;
    rows = rows.slice().sort((a, b) => {
      const x = a[k];
      const y = b[k];
      const c = typeof x === 'string' ? x.localeCompare(String(y)) : Number(x) - Number(y);
      return c * sign || a.line - b.line;
    });
  }
  const offset = q.offset ?? 0;
  return { total: rows.length, rows: rows.slice(offset, offset + (q.limit ?? 100)) };
}

export function envRows(all: readonly EpisodeSummary[]): EnvRow[] {
  const by = new Map<string, EpisodeSummary[]>();
  for (const e of all) {
    const list = by.get(e.env_id);
    if (list) list.push(e);
    else by.set(e.env_id, [e]);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([env_id, es]) => ({
      env_id,
      episodes: es.length,
      success_rate: mean(es.map((e) => (e.success ? 1 : 0))),
      mean_return: mean(es.map((e) => e.return)),
      mean_turns: mean(es.map((e) => e.num_turns)),
      format_error_rate: mean(es.map((e) => (e.format_error ? 1 : 0))),
    }));
}
