/** The UI server's JSON API (core/src/ui/uiServer.ts). Errors carry the server's message. */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/api/${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json().catch(() => ({ error: `HTTP ${res.status}` }))) as T & { error?: string };
  if (!res.ok) throw new Error(json.error ?? `HTTP ${res.status}`);
  return json;
}

export type { EnvRow, EpisodeSummary, Notice, PlayState, PlayStep, RunInfo } from '../../src/ui/apiTypes.ts';
export type { TurnRecord } from '../../src/eval/transcript.ts';
import type { EpisodeRecord as StoredEpisode } from '../../src/eval/transcript.ts';

/** An episode as read from a file: a newer format version may carry fields this app does not know. */
export type EpisodeRecord = StoredEpisode & Record<string, unknown>;
