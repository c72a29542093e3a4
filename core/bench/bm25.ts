/**
 * BM25 queries per second over a generated 100,000-document corpus, with bm25s (a sparse-matrix
 * BM25 for Python) as the peer in the same run when the root venv has it (scripts/requirements/
 * search-bench.txt). Both get the same documents already tokenised by our tokenizer and the same
 * parameters (Lucene idf, k1 = 0.9, b = 0.4), so their top-3 lists should agree; the bench reports
 * how often they do. Also reports index build time and the time to load the cached index.
 * Writes core/bench/results/bm25.json.
 *
 *   npm run bench bm25            (GEM_BENCH_SECONDS=3 per measurement, GEM_BENCH_DOCS=100000)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../src/core/rng.ts';
import { loadIndexedCorpus } from '../src/tools/search/indexCache.ts';
import { tokenize } from '../src/tools/search/tokenize.ts';

const SECONDS = Number(process.env.GEM_BENCH_SECONDS ?? 3);
const NUM_DOCS = Number(process.env.GEM_BENCH_DOCS ?? 100_000);
const VOCAB = 50_000;
const NUM_QUERIES = 2_000;
const TOPK = 3;
const VENV_PYTHON = fileURLToPath(new URL('../../.venv/bin/python', import.meta.url));

/** Pronounceable made-up words, so the corpus is text-like but owes nothing to any real text. */
function makeVocabulary(rng: Rng): string[] {
  const c = 'bcdfghjklmnprstvz';
  const v = 'aeiou';
  const words = new Set<string>();
  while (words.size < VOCAB) {
    let w = '';
    for (let s = rng.int(2, 4); s > 0; s--) w += c[rng.int(0, c.length - 1)] + v[rng.int(0, v.length - 1)];
    // End on a consonant other than "s" so the plural folding leaves words alone.
    words.add(w + 'bdgkmnprt'[rng.int(0, 8)]);
  }
  return [...words];
}

/** Zipf(1.1) sampler over ranks 0..n-1 by inverse CDF on a precomputed table. */
function zipfSampler(rng: Rng, n: number): () => number {
  const cdf = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cdf[i] = total += 1 / Math.pow(i + 1, 1.1);
  return () => {
    const x = rng.random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const rng = new Rng(2510);
const vocab = makeVocabulary(rng);
const zipf = zipfSampler(rng, VOCAB);
const phrase = (min: number, max: number) => Array.from({ length: rng.int(min, max) }, () => vocab[zipf()]).join(' ');

const dir = mkdtempSync(join(tmpdir(), 'gem-ts-bm25-bench-'));
const corpusPath = join(dir, 'corpus.jsonl');
const docs: string[] = [];
for (let i = 0; i < NUM_DOCS; i++) docs.push(`${phrase(2, 4)}\n${phrase(30, 120)}.`);
writeFileSync(corpusPath, docs.map((d, i) => JSON.stringify({ id: String(i), contents: d })).join('\n'));
const queries = Array.from({ length: NUM_QUERIES }, () => phrase(2, 5));
console.log(`BM25 over ${NUM_DOCS.toLocaleString('en')} generated documents (${VOCAB.toLocaleString('en')}-word Zipf vocabulary), top-${TOPK}, ${SECONDS} s windows`);

let t0 = performance.now();
const built = loadIndexedCorpus(corpusPath, { cacheDir: join(dir, 'cache') });
const buildSeconds = (performance.now() - t0) / 1000;
t0 = performance.now();
const cached = loadIndexedCorpus(corpusPath, { cacheDir: join(dir, 'cache') });
const cacheLoadSeconds = (performance.now() - t0) / 1000;
if (!cached.fromCache) throw new Error('the second load did not come from the cache');
const index = cached.index;
console.log(`  build (read, tokenise, index, write cache)  ${buildSeconds.toFixed(2)} s;  load from cache  ${cacheLoadSeconds.toFixed(2)} s`);
console.log(`  postings ${index.data.docIds.length.toLocaleString('en')}, terms ${index.data.terms.length.toLocaleString('en')}`);

for (let i = 0; i < 200; i++) index.search(queries[i % NUM_QUERIES], TOPK);
let n = 0;
const end = performance.now() + SECONDS * 1000;
t0 = performance.now();
while (performance.now() < end) {
  index.search(queries[n % NUM_QUERIES], TOPK);
  n++;
}
const ours = n / ((performance.now() - t0) / 1000);
console.log(`  gem-ts Bm25Index (one query at a time)      ${ours.toFixed(0).padStart(8)} queries/s`);
const ourTop = queries.map((q) => index.search(q, TOPK).map((h) => h.doc));

interface PeerResult {
  version: string;
  index_seconds: number;
  single_qps: number;
  batch_qps: number;
  top: number[][];
}

// The peer: bm25s, fed our tokens, timed one query at a time and as one batch.
const PEER = `
import json, sys, time
import bm25s, numpy as np
src = json.load(open(sys.argv[1]))
docs, queries, k, seconds = src["docs"], src["queries"], src["k"], src["seconds"]
t = time.perf_counter()
vocab = {}
corpus_ids = [[vocab.setdefault(w, len(vocab)) for w in d] for d in docs]
model = bm25s.BM25(method="lucene", k1=0.9, b=0.4)
model.index(bm25s.tokenization.Tokenized(ids=corpus_ids, vocab=vocab), show_progress=False)
index_seconds = time.perf_counter() - t
qs = [[w for w in q if w in vocab] for q in queries]
def one(q):
    return model.retrieve([q], k=k, show_progress=False, n_threads=1)
for q in qs[:200]: one(q)
n, t, end = 0, time.perf_counter(), time.perf_counter() + seconds
while time.perf_counter() < end:
    one(qs[n % len(qs)]); n += 1
single = n / (time.perf_counter() - t)
t = time.perf_counter()
res = model.retrieve(qs, k=k, show_progress=False, n_threads=1)
batch = len(qs) / (time.perf_counter() - t)
docs_idx = res.documents if hasattr(res, "documents") else res[0]
print(json.dumps({"version": bm25s.__version__, "index_seconds": index_seconds, "single_qps": single, "batch_qps": batch, "top": np.asarray(docs_idx).tolist()}))
`;

let peer: PeerResult | undefined;
let agreement: number | undefined;
let peerNote: string | undefined;
const hasPeer = existsSync(VENV_PYTHON) && spawnSync(VENV_PYTHON, ['-c', 'import bm25s'], { stdio: 'ignore' }).status === 0;
if (!hasPeer) {
  peerNote = 'bm25s not installed in the root venv (npm run bench installs scripts/requirements/extras/search-bench.txt)';
  console.log(`  peer skipped: ${peerNote}`);
} else {
  const input = join(dir, 'peer-input.json');
  writeFileSync(input, JSON.stringify({ docs: docs.map(tokenize), queries: queries.map(tokenize), k: TOPK, seconds: SECONDS }));
  const r = spawnSync(VENV_PYTHON, ['-c', PEER, input], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`bm25s peer failed: ${r.stderr}`);
  peer = JSON.parse(r.stdout.trim().split('\n').pop()!) as PeerResult;
  // Same top-3 set per query (order may differ on exact score ties).
  let same = 0;
  peer.top.forEach((t, i) => {
    const a = [...t].sort((x, y) => x - y).join();
    const b = [...ourTop[i]].sort((x, y) => x - y).join();
    if (a === b) same++;
  });
  agreement = same / queries.length;
  console.log(`  bm25s ${peer.version} (one query at a time)            ${peer.single_qps.toFixed(0).padStart(8)} queries/s   (index ${peer.index_seconds.toFixed(2)} s)`);
  console.log(`  bm25s ${peer.version} (all ${NUM_QUERIES} queries in one batch)   ${peer.batch_qps.toFixed(0).padStart(8)} queries/s`);
  console.log(`  top-${TOPK} agreement with bm25s: ${(agreement * 100).toFixed(1)}% of queries`);
}
rmSync(dir, { recursive: true, force: true });

const outDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(outDir, { recursive: true });
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
writeFileSync(
  `${outDir}bm25.json`,
  `${JSON.stringify(
    {
      benchmark: 'bm25',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      corpus: { docs: NUM_DOCS, vocabulary: VOCAB, zipf: 1.1, docWords: '32-124', queryWords: '2-5', postings: index.data.docIds.length },
      topk: TOPK,
      windowSeconds: SECONDS,
      buildSeconds: round(buildSeconds, 2),
      cacheLoadSeconds: round(cacheLoadSeconds, 2),
      queriesPerSecond: round(ours),
      peer: peer
        ? {
            name: `bm25s ${peer.version}`,
            indexSeconds: round(peer.index_seconds, 2),
            singleQueriesPerSecond: round(peer.single_qps),
            batchQueriesPerSecond: round(peer.batch_qps),
            top3Agreement: round(agreement!, 4),
            ratioSingle: round(ours / peer.single_qps, 2),
          }
        : { skipped: peerNote },
      builtFromScratch: !built.fromCache,
    },
    null,
    2,
  )}\n`,
);
