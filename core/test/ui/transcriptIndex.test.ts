import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TranscriptIndex } from '../../src/ui/transcriptIndex.ts';
import { makeSampleRuns } from './sampleRuns.ts';

let dir: string;
let lines: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gem-ui-index-'));
  const runs = await makeSampleRuns(join(dir, 'runs'), 2);
  lines = readFileSync(join(runs.search, 'transcripts.jsonl'), 'utf8').trim().split('\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('TranscriptIndex', () => {
  it('indexes every episode of an eval transcript and reads each back by offset', async () => {
    const idx = new TranscriptIndex(file('ok.jsonl', lines.join('\n') + '\n'));
    await idx.refresh();
    expect(idx.summaries).toHaveLength(lines.length);
    expect(idx.notices()).toEqual([]);
    for (const s of idx.summaries) {
      const rec = await idx.episode(s.line);
      expect(rec).toEqual(JSON.parse(lines[s.line - 1]));
      expect(s).toMatchObject({ env_id: rec!.env_id, seed: rec!.seed, success: rec!.success, num_turns: rec!.num_turns });
    }
    expect(await idx.episode(999)).toBeUndefined();
  });

  it('a malformed line and a non-episode line become notices; the other lines stay', async () => {
    const text = [lines[0], '{"env_id": "x", "seed": 1, "turns": [', lines[1], '[1, 2, 3]', '{"hello": 1}', lines[2]].join('\n') + '\n';
    const idx = new TranscriptIndex(file('bad.jsonl', text));
    await idx.refresh();
    expect(idx.summaries.map((s) => s.line)).toEqual([1, 3, 6]);
    const n = idx.notices();
    expect(n.map((x) => x.line)).toEqual([2, 4, 5]);
    expect(n[0].message).toMatch(/Line 2: not valid JSON/);
    expect(n[1].message).toMatch(/Line 4: not a JSON object/);
    expect(n[2].message).toMatch(/Line 5: not an episode record \(no env_id, seed, turns\)/);
    expect((await idx.episode(6))?.seed).toBe(JSON.parse(lines[2]).seed);
  });

  it('a file cut short mid-line shows everything before the cut, says so, and picks up the rest when it is written', async () => {
    const cut = lines[2].slice(0, 40);
    const p = file('cut.jsonl', `${lines[0]}\n${lines[1]}\n${cut}`);
    const idx = new TranscriptIndex(p);
    await idx.refresh();
    expect(idx.summaries).toHaveLength(2);
    expect(idx.notices()).toEqual([expect.objectContaining({ level: 'warning', line: 3, message: expect.stringMatching(/ends in the middle of line 3 \(40 bytes/) })]);
    // The writer finishes the line: the next refresh reads it from where the cut was.
    appendFileSync(p, lines[2].slice(40) + '\n' + lines[3] + '\n');
    await idx.refresh();
    expect(idx.summaries.map((s) => s.line)).toEqual([1, 2, 3, 4]);
    expect(idx.notices()).toEqual([]);
  });

  it('a whole last record without a newline is read', async () => {
    const idx = new TranscriptIndex(file('nonl.jsonl', `${lines[0]}\n${lines[1]}`));
    await idx.refresh();
    expect(idx.summaries).toHaveLength(2);
    expect(idx.notices()).toEqual([]);
  });

  it('records of a newer format version are listed with one notice naming the version', async () => {
    const newer = lines.slice(0, 3).map((l) => JSON.stringify({ ...JSON.parse(l), version: 7, new_field: { x: 1 } }));
    const idx = new TranscriptIndex(file('newer.jsonl', [lines[3], ...newer].join('\n') + '\n'));
    await idx.refresh();
    expect(idx.summaries).toHaveLength(4);
    const n = idx.notices();
    expect(n).toHaveLength(1);
    expect(n[0].message).toMatch(/3 episodes were written in transcript format version 7, newer than this viewer reads \(version 1\)/);
    expect(((await idx.episode(2)) as unknown as Record<string, unknown>).new_field).toEqual({ x: 1 });
  });

  it('starts over when the file was rewritten shorter (eval drops a cut line that way)', async () => {
    const p = file('rewrite.jsonl', lines.slice(0, 4).join('\n') + '\n');
    const idx = new TranscriptIndex(p);
    await idx.refresh();
    writeFileSync(p, lines[5] + '\n');
    await idx.refresh();
    expect(idx.summaries).toHaveLength(1);
    expect((await idx.episode(1))?.seed).toBe(JSON.parse(lines[5]).seed);
  });

  it('a missing file is a notice, not a crash', async () => {
    const idx = new TranscriptIndex(join(dir, 'nope.jsonl'));
    await idx.refresh();
    expect(idx.notices()[0].message).toMatch(/Cannot read .*nope\.jsonl/);
  });

  it('streams a file in chunks: the event loop runs while it indexes, and only summaries are kept', async () => {
    // ~12 MB from the sample records (distinct seeds): many 1 MiB chunks.
    const recs = lines.map((l) => JSON.parse(l));
    const parts: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 12 << 20; i++) {
      const s = JSON.stringify({ ...recs[i % recs.length], seed: i, model: 'x'.repeat(200) }) + '\n';
      parts.push(s);
      bytes += Buffer.byteLength(s);
    }
    const idx = new TranscriptIndex(file('big.jsonl', parts.join('')));
    let ticks = 0;
    const seen: number[] = [];
    const timer = setInterval(() => {
      ticks++;
      seen.push(idx.progress.episodes);
    }, 0);
    await idx.refresh();
    clearInterval(timer);
    expect(idx.summaries).toHaveLength(parts.length);
    // Timers fired during the scan, and saw a partial index (rows were available before the end).
    expect(ticks).toBeGreaterThan(2);
    expect(seen.some((n) => n > 0 && n < parts.length)).toBe(true);
    const last = idx.summaries[idx.summaries.length - 1];
    expect((await idx.episode(last.line))?.seed).toBe(parts.length - 1);
    expect(idx.progress).toEqual({ indexing: false, bytes_indexed: bytes, bytes_total: bytes, episodes: parts.length });
  });
});
