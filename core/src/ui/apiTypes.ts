/**
 * The shapes the UI server's JSON API sends, shared by the server (core/src/ui) and the web app
 * (core/ui/src, type-only imports) so the two cannot drift. No runtime code, no Node imports.
 */
import type { ChatMessage } from '../eval/chatClient.ts';

export interface Notice {
  level: 'warning' | 'error';
  message: string;
  line?: number;
}

export interface EpisodeSummary {
  /** 1-based line number in the file: the episode's stable address. */
  line: number;
  env_id: string;
  seed: number;
  model: string;
  success: boolean;
  return: number;
  num_turns: number;
  format_error: boolean;
  ended_by: string;
  version: number;
}

export interface IndexProgress {
  indexing: boolean;
  bytes_indexed: number;
  bytes_total: number;
  episodes: number;
}

export interface EnvRow {
  env_id: string;
  episodes: number;
  success_rate: number;
  mean_return: number;
  mean_turns: number;
  format_error_rate: number;
}

export interface RunInfo {
  id: string;
  kind: 'eval' | 'benchmark';
  name: string;
  path: string;
}

export type DivergenceKind = 'observation' | 'action' | 'reward' | 'length' | 'final_observation';

export interface Divergence {
  /** 1-based turn number of the first difference. */
  turn: number;
  kind: DivergenceKind;
}

export interface ComparedPair {
  env_id: string;
  seed: number;
  a: EpisodeSummary;
  b: EpisodeSummary;
  /** null: the two episodes are the same turn for turn. */
  divergence: Divergence | null;
}

export type CurvePoint = Record<string, number>;

export interface Curve {
  algorithm: string;
  /** Set when the file holds one curve per seed. */
  seed?: number | string;
  points: CurvePoint[];
}

export interface BenchmarkTask {
  name: string;
  env_id?: string;
  description?: string;
  /** Horizontal reference lines (random policy, warm start), per metric. */
  baselines: { label: string; values: CurvePoint }[];
  curves: Curve[];
  /** The numeric metrics the curves' points carry (success, return, turns, …). */
  metrics: string[];
}

export interface PlayStep {
  turn: number;
  action: string;
  observation: string;
  reward: number;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

export interface PlayState {
  id: string;
  env_id: string;
  seed: number;
  player: 'human' | 'model';
  model: string;
  /** Bumped on every change; long polls wait for a newer one. */
  version: number;
  /** The conversation as the player sees it now (system, user, assistant, …, user). */
  messages: ChatMessage[];
  steps: PlayStep[];
  waiting_for_human: boolean;
  done: boolean;
  return: number;
  success?: boolean;
  error?: string;
  saved?: { run: string; line: number };
}
