/**
 * Test helper: two real `gem-ts eval` runs (the evaluator against the scripted mock endpoint) over
 * the same env ids and seeds, so the UI is tested on transcripts gem-ts itself wrote. The "search"
 * model halves GuessTheNumber's range; the "linear" one counts up from 1, so the two diverge.
 * Sudoku, Minesweeper and Wordle give the episode view boards to draw.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluate } from '../../src/eval/evaluator.ts';
import { binarySearchPolicy, startMockServer, type Message, type Policy } from '../eval/mockChatServer.ts';

export const SAMPLE_ENVS = ['game:GuessTheNumber-v0-easy', 'game:Sudoku-v0-easy', 'game:Minesweeper-v0-easy', 'game:Wordle-v0-easy'];
const WORDS = ['CAT', 'DOG', 'SUN', 'ART', 'EAR', 'OWL', 'PIG', 'RAT'];

function turnOf(messages: Message[]): number {
  return messages.filter((m) => m.role === 'assistant').length;
}

function policy(kind: 'search' | 'linear'): Policy {
  return (messages) => {
    const first = messages.find((m) => m.role === 'user')?.content ?? '';
    const t = turnOf(messages);
    if (first.includes('Guess The Number')) return kind === 'search' ? binarySearchPolicy(messages) : `Counting up: \\boxed{${t + 1}}`;
    if (first.includes('Sudoku')) return `I will try \\boxed{${(t % 4) + 1} ${((t * 3) % 4) + 1} ${kind === 'search' ? (t % 4) + 1 : 2}}`;
    if (first.includes('Minesweeper')) return t === 2 && kind === 'linear' ? 'reveal the corner' : `\\boxed{reveal ${t % 5} ${(t * 2) % 5}}`;
    if (first.includes('Wordle')) return `My guess is \\boxed{${WORDS[(t + (kind === 'search' ? 0 : 3)) % WORDS.length]}}`;
    return '\\boxed{1}';
  };
}

export async function makeSampleRuns(dir: string, episodes = 3): Promise<{ search: string; linear: string }> {
  const out = { search: join(dir, 'search'), linear: join(dir, 'linear') };
  for (const kind of ['search', 'linear'] as const) {
    const mock = await startMockServer({ policy: policy(kind) });
    try {
      await evaluate({ baseUrl: mock.url, model: `mock-${kind}`, envIds: SAMPLE_ENVS, episodes, maxTurns: 8, outDir: out[kind], concurrency: 2 });
    } finally {
      await mock.close();
    }
  }
  return out;
}

/** The committed benchmark result the UI tests open, and what a reader should find in it (derived from
 * the file, so a new benchmark run committed there does not break the tests). */
export const COMMITTED_BENCHMARK = new URL('../../../docs/results/benchmark_algorithms.json', import.meta.url);

type Interval = { mean: number; lo: number; hi: number };

export function committedBenchmarkCurves(): {
  tasks: string[];
  curves: Record<string, number>;
  algorithms: Record<string, string[]>;
  /** Per task and algorithm, the report's own intervals (final_success, final_return, …). */
  summary: Record<string, Record<string, Record<string, Interval>>>;
} {
  const raw = JSON.parse(readFileSync(COMMITTED_BENCHMARK, 'utf8')) as { tasks: Record<string, any> };
  const curves: Record<string, number> = {};
  const algorithms: Record<string, string[]> = {};
  const summary: Record<string, Record<string, Record<string, Interval>>> = {};
  for (const [name, task] of Object.entries(raw.tasks)) {
    summary[name] = task.summary?.rows ?? {};
    const runs = task.algorithms ? [task] : Object.values(task.seeds ?? {});
    const algos = runs.flatMap((r: any) => Object.keys(r?.algorithms ?? {}));
    curves[name] = algos.length;
    algorithms[name] = [...new Set(algos)];
  }
  return { tasks: Object.keys(raw.tasks), curves, algorithms, summary };
}
