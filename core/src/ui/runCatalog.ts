/**
 * The runs the UI has open. A path may be an eval output folder (holding transcripts.jsonl), a
 * .jsonl transcript file, a benchmark result .json, or a folder of such things (searched one level
 * down, so `gem-ts ui runs/` opens every run in it). Each run gets a short stable id for URLs.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { TRANSCRIPT_FILE } from '../eval/transcriptStore.ts';
import { looksLikeBenchmark, readBenchmark, type BenchmarkRun } from './benchmarkRun.ts';
import type { RunInfo } from './apiTypes.ts';
import { TranscriptIndex } from './transcriptIndex.ts';

export interface Run {
  id: string;
  kind: 'eval' | 'benchmark';
  name: string;
  path: string;
  index?: TranscriptIndex;
}

/** What examples/benchmark_algorithms.py writes into its --out folder. */
const BENCHMARK_FILE = 'results.json';

export class RunCatalog {
  private runs = new Map<string, Run>();
  private byPath = new Map<string, Run>();

  list(): RunInfo[] {
    return [...this.runs.values()].map(({ id, kind, name, path }) => ({ id, kind, name, path }));
  }

  get(id: string): Run | undefined {
    return this.runs.get(id);
  }

  /** Opens what `path` holds; returns the runs found (already-open ones included). Throws if none. */
  async add(path: string): Promise<Run[]> {
    const abs = resolve(path);
    let st;
    try {
      st = await stat(abs);
    } catch {
      throw new Error(`${path}: no such file or folder`);
    }
    if (st.isFile()) {
      const run = await this.addFile(abs);
      if (!run) throw new Error(`${path}: not a transcript (.jsonl) or a benchmark result (.json)`);
      return [run];
    }
    const own = join(abs, TRANSCRIPT_FILE);
    if (existsSync(own)) return [this.addTranscript(own)];
    const found: Run[] = [];
    for (const name of (await readdir(abs)).sort()) {
      const child = join(abs, name);
      const cst = await stat(child).catch(() => undefined);
      if (cst?.isDirectory() && existsSync(join(child, TRANSCRIPT_FILE))) found.push(this.addTranscript(join(child, TRANSCRIPT_FILE)));
      else if (cst?.isFile() || (cst?.isDirectory() && existsSync(join(child, BENCHMARK_FILE)))) {
        const run = await this.addFile(cst.isFile() ? child : join(child, BENCHMARK_FILE));
        if (run) found.push(run);
      }
    }
    if (!found.length) throw new Error(`${path}: no ${TRANSCRIPT_FILE} or benchmark result found in this folder or its subfolders`);
    return found;
  }

  private async addFile(abs: string): Promise<Run | undefined> {
    if (abs.endsWith('.jsonl')) return this.addTranscript(abs);
    if (!abs.endsWith('.json')) return undefined;
    const known = this.byPath.get(abs);
    if (known) return known;
    // Only small files are sniffed: a benchmark result is tens of KB.
    const st = await stat(abs);
    if (st.size > 64 << 20) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(abs, 'utf8'));
    } catch {
      return undefined;
    }
    if (!looksLikeBenchmark(parsed)) return undefined;
    // `runs/demo/results.json` (what the benchmark script writes) is the run `demo`, not `results`.
    const name = basename(abs) === BENCHMARK_FILE ? basename(dirname(abs)) : basename(abs).replace(/\.json$/, '');
    return this.register('benchmark', name, abs);
  }

  /** A transcript file; named after its folder when it is the standard transcripts.jsonl. */
  addTranscript(abs: string): Run {
    abs = resolve(abs);
    const known = this.byPath.get(abs);
    if (known) return known;
    const name = basename(abs) === TRANSCRIPT_FILE ? basename(dirname(abs)) : basename(abs).replace(/\.jsonl$/, '');
    const run = this.register('eval', name, abs);
    run.index = new TranscriptIndex(abs);
    void run.index.refresh();
    return run;
  }

  private register(kind: Run['kind'], name: string, abs: string): Run {
    const base = name.replace(/[^A-Za-z0-9._-]+/g, '_') || 'run';
    let id = base;
    for (let n = 2; this.runs.has(id); n++) id = `${base}-${n}`;
    const run: Run = { id, kind, name, path: abs };
    this.runs.set(id, run);
    this.byPath.set(abs, run);
    return run;
  }

  async benchmark(run: Run): Promise<BenchmarkRun> {
    return readBenchmark(run.path);
  }
}
