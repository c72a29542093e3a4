/**
 * Compare two eval runs: episodes are paired on (env id, seed) — with the same seed both models saw
 * the same first observation — and for each pair the first turn where the two diverge is found: the
 * observation differs (the env answered differently, because of an earlier action) or the action
 * differs, or one episode goes on longer than the other.
 */
import type { EpisodeRecord, TurnRecord } from '../eval/transcript.ts';
import type { ComparedPair, Divergence, EpisodeSummary } from './apiTypes.ts';
import type { TranscriptIndex } from './transcriptIndex.ts';

export interface Comparison {
  pairs: ComparedPair[];
  only_a: number;
  only_b: number;
}

export function firstDivergence(a: Pick<EpisodeRecord, 'turns' | 'final_observation'>, b: Pick<EpisodeRecord, 'turns' | 'final_observation'>): Divergence | null {
  const n = Math.min(a.turns.length, b.turns.length);
  for (let i = 0; i < n; i++) {
    const x: TurnRecord = a.turns[i];
    const y: TurnRecord = b.turns[i];
    if (x.user !== y.user) return { turn: i + 1, kind: 'observation' };
    if (x.reply !== y.reply) return { turn: i + 1, kind: 'action' };
    if (x.reward !== y.reward) return { turn: i + 1, kind: 'reward' };
  }
  if (a.turns.length !== b.turns.length) return { turn: n + 1, kind: 'length' };
  if (a.final_observation !== b.final_observation) return { turn: n, kind: 'final_observation' };
  return null;
}

const key = (e: EpisodeSummary) => `${e.env_id}\u0000${e.seed}`;

/** Pairs every episode present in both runs (first occurrence of a pair wins), in env/seed order. */
export async function compareRuns(a: TranscriptIndex, b: TranscriptIndex): Promise<Comparison> {
  const inB = new Map<string, EpisodeSummary>();
  for (const e of b.summaries) if (!inB.has(key(e))) inB.set(key(e), e);
  const seen = new Set<string>();
  const pairs: ComparedPair[] = [];
  for (const ea of a.summaries) {
    const k = key(ea);
    const eb = inB.get(k);
    if (!eb || seen.has(k)) continue;
    seen.add(k);
    // One pair in memory at a time: records are read back by offset.
    const [ra, rb] = await Promise.all([a.episode(ea.line), b.episode(eb.line)]);
    pairs.push({ env_id: ea.env_id, seed: ea.seed, a: ea, b: eb, divergence: ra && rb ? firstDivergence(ra, rb) : null });
  }
  pairs.sort((x, y) => x.env_id.localeCompare(y.env_id) || x.seed - y.seed);
  const keysA = new Set(a.summaries.map(key));
  return { pairs, only_a: keysA.size - seen.size, only_b: inB.size - seen.size };
}
