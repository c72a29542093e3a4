/**
 * How `gem-ts ui` copes with a big transcript: writes a ~100 MB transcripts.jsonl (real eval records
 * from the mock endpoint, distinct seeds), then times the streamed index, the heap it keeps, how often
 * the event loop got to run meanwhile, and one episode read back by offset.
 *
 *   npx tsx core/ui/bench/indexBig.ts [MB]      (default 100)
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TranscriptIndex } from '../../src/ui/transcriptIndex.ts';
import { makeSampleRuns } from '../../test/ui/sampleRuns.ts';

const mb = Number(process.argv[2] ?? 100);
const dir = mkdtempSync(join(tmpdir(), 'gem-ui-bench-'));
try {
  const runs = await makeSampleRuns(join(dir, 'runs'), 3);
  const recs = readFileSync(join(runs.search, 'transcripts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const path = join(dir, 'big.jsonl');
  const ws = createWriteStream(path);
  let bytes = 0;
  let n = 0;
  while (bytes < mb * 2 ** 20) {
    const s = JSON.stringify({ ...recs[n % recs.length], seed: n++ }) + '\n';
    bytes += Buffer.byteLength(s);
    if (!ws.write(s)) await new Promise<void>((r) => ws.once('drain', () => r()));
  }
  await new Promise<void>((r) => ws.end(() => r()));
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const idx = new TranscriptIndex(path);
  let ticks = 0;
  let firstRows = 0;
  const started = performance.now();
  const timer = setInterval(() => {
    ticks++;
    if (!firstRows && idx.progress.episodes) firstRows = performance.now() - started;
  }, 1);
  await idx.refresh();
  const ms = performance.now() - started;
  clearInterval(timer);
  global.gc?.();
  const heap = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  const t = performance.now();
  await idx.episode(idx.summaries[idx.summaries.length - 1].line);
  const readMs = performance.now() - t;
  console.log(
    `${(bytes / 2 ** 20).toFixed(0)} MB, ${n} episodes: indexed in ${ms.toFixed(0)} ms (${((bytes / 2 ** 20) / (ms / 1000)).toFixed(0)} MB/s), ` +
      `first rows after ${firstRows.toFixed(0)} ms, event loop ran ${ticks} times meanwhile, index heap ${heap.toFixed(1)} MB ` +
      `(${((heap * 2 ** 20) / n).toFixed(0)} B/episode), last episode read in ${readMs.toFixed(1)} ms`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
