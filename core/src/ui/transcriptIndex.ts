/**
 * A byte-offset index of a transcripts.jsonl file, built by streaming it in 1 MiB chunks: per line
 * only its offset, length and a few summary fields are kept, never the episode itself, so a file of
 * hundreds of MB opens in constant memory per episode and any episode is read back with one
 * positioned read. The scan yields to the event loop after every chunk, so the server keeps answering
 * (the page shows the rows indexed so far) while a big file is still being read. A file that grows
 * (an eval still running) is picked up from where the last scan stopped.
 *
 * Bad input never hides the rest: a line that is not JSON, a line that is not an episode, a last
 * line cut short, or a record of a newer format version each become a notice; every other line is
 * still listed.
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { TRANSCRIPT_VERSION, type EpisodeRecord } from '../eval/transcript.ts';
import type { EpisodeSummary, IndexProgress, Notice } from './apiTypes.ts';

export type { EpisodeSummary, IndexProgress, Notice };

const CHUNK = 1 << 20;
/** Notices listed one by one before they are only counted. */
const MAX_LISTED = 20;

interface Entry {
  offset: number;
  length: number;
  summary: EpisodeSummary;
}

function num(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** The fields every episode line must have; anything else is read as far as it goes. */
function summarise(line: number, v: unknown): EpisodeSummary | string {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const r = v as Partial<EpisodeRecord>;
  const missing = (['env_id', 'seed', 'turns'] as const).filter((k) => r[k] === undefined);
  if (missing.length) return `not an episode record (no ${missing.join(', ')})`;
  if (!Array.isArray(r.turns)) return "not an episode record ('turns' is not a list)";
  return {
    line,
    env_id: String(r.env_id),
    seed: num(r.seed, NaN),
    model: typeof r.model === 'string' ? r.model : '',
    success: r.success === true,
    return: num(r.return),
    num_turns: num(r.num_turns, r.turns.length),
    format_error: r.format_error === true,
    ended_by: typeof r.ended_by === 'string' ? r.ended_by : '',
    version: num(r.version, 1),
  };
}

export class TranscriptIndex {
  private entries: Entry[] = [];
  private problems: Notice[] = [];
  private problemCount = 0;
  private newerVersions = new Map<number, number>();
  /** Offset just past the last complete line scanned. */
  private scanned = 0;
  private lineNo = 0;
  private size = 0;
  /** A last line with no newline that did not parse: maybe cut short, maybe still being written. */
  private tail?: { offset: number; bytes: number };
  private scan?: Promise<void>;
  private failure?: string;

  constructor(readonly path: string) {}

  /** Start (or continue, if the file grew) the scan; resolves when it is done. */
  refresh(): Promise<void> {
    this.scan ??= this.scanFrom().finally(() => (this.scan = undefined));
    return this.scan;
  }

  get progress(): IndexProgress {
    return { indexing: this.scan !== undefined, bytes_indexed: this.scanned, bytes_total: this.size, episodes: this.entries.length };
  }

  get summaries(): readonly EpisodeSummary[] {
    return this.entries.map((e) => e.summary);
  }

  /** Problems found so far, newest-format warnings first. */
  notices(): Notice[] {
    const out: Notice[] = [];
    if (this.failure) out.push({ level: 'error', message: this.failure });
    for (const [v, n] of this.newerVersions) {
      out.push({
        level: 'warning',
        message:
          `${n} episode${n === 1 ? ' was' : 's were'} written in transcript format version ${v}, newer than this viewer ` +
          `reads (version ${TRANSCRIPT_VERSION}); they are shown as far as their fields are known. Update gem-ts to see everything.`,
      });
    }
    out.push(...this.problems);
    if (this.problemCount > this.problems.length) {
      out.push({ level: 'error', message: `…and ${this.problemCount - this.problems.length} more unreadable lines (not listed).` });
    }
    if (this.tail && !this.scan) {
      out.push({
        level: 'warning',
        line: this.lineNo + 1,
        message:
          `The file ends in the middle of line ${this.lineNo + 1} (${this.tail.bytes} bytes without a newline that are not a whole ` +
          'record): it was cut short, or is still being written. That line is left out; everything before it is shown.',
      });
    }
    return out;
  }

  private problem(line: number, message: string): void {
    this.problemCount++;
    if (this.problems.length < MAX_LISTED) this.problems.push({ level: 'error', line, message: `Line ${line}: ${message}; skipped.` });
  }

  private addLine(buf: Buffer, offset: number): void {
    this.lineNo++;
    const text = buf.toString('utf8').trim();
    if (!text) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      this.problem(this.lineNo, `not valid JSON (${(e as Error).message.slice(0, 120)})`);
      return;
    }
    const s = summarise(this.lineNo, parsed);
    if (typeof s === 'string') {
      this.problem(this.lineNo, s);
      return;
    }
    if (s.version > TRANSCRIPT_VERSION) this.newerVersions.set(s.version, (this.newerVersions.get(s.version) ?? 0) + 1);
    this.entries.push({ offset, length: buf.length, summary: s });
  }

  private async scanFrom(): Promise<void> {
    let st;
    try {
      st = await stat(this.path);
    } catch (e) {
      this.failure = `Cannot read ${this.path}: ${(e as Error).message}`;
      return;
    }
    this.failure = undefined;
    this.size = st.size;
    if (st.size < this.scanned) {
      // Rewritten shorter (eval drops a cut-off line by rewriting the file): start over.
      this.entries = [];
      this.problems = [];
      this.problemCount = 0;
      this.newerVersions.clear();
      this.scanned = 0;
      this.lineNo = 0;
    }
    this.tail = undefined;
    if (st.size === this.scanned) return;
    const stream = createReadStream(this.path, { start: this.scanned, end: st.size - 1, highWaterMark: CHUNK });
    let pending: Buffer[] = [];
    let pendingStart = this.scanned;
    let pos = this.scanned;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
        pending.push(chunk.subarray(from, nl));
        this.addLine(pending.length === 1 ? pending[0] : Buffer.concat(pending), pendingStart);
        pendingStart = pos + nl + 1;
        from = nl + 1;
        pending = [];
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
      pos += chunk.length;
      this.scanned = pendingStart;
      // Let requests in between chunks: the page shows what is indexed so far.
      await new Promise((r) => setImmediate(r));
    }
    if (pending.length) {
      // No newline at the end: a whole record is fine (hand-written files), anything else is a cut.
      const last = Buffer.concat(pending);
      let whole: boolean;
      try {
        whole = typeof summarise(this.lineNo + 1, JSON.parse(last.toString('utf8'))) !== 'string';
      } catch {
        whole = false;
      }
      if (whole) {
        this.addLine(last, pendingStart);
        this.scanned = pendingStart + last.length;
      } else {
        this.tail = { offset: pendingStart, bytes: last.length };
      }
    }
  }

  /** The full record of the episode on `line` (one positioned read), or undefined if no such episode. */
  async episode(line: number): Promise<EpisodeRecord | undefined> {
    const e = this.findLine(line);
    if (!e) return undefined;
    const fh = await open(this.path, 'r');
    try {
      const buf = Buffer.alloc(e.length);
      await fh.read(buf, 0, e.length, e.offset);
      return JSON.parse(buf.toString('utf8')) as EpisodeRecord;
    } finally {
      await fh.close();
    }
  }

  /** The lines of the episodes before and after `line` in the file, for previous/next links. */
  neighbours(line: number): { prev?: number; next?: number } {
    const i = this.findIndex(line);
    if (i < 0) return {};
    return { prev: this.entries[i - 1]?.summary.line, next: this.entries[i + 1]?.summary.line };
  }

  private findLine(line: number): Entry | undefined {
    const i = this.findIndex(line);
    return i < 0 ? undefined : this.entries[i];
  }

  private findIndex(line: number): number {
    // Entries are in line order: binary search.
    let lo = 0;
    let hi = this.entries.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const l = this.entries[mid].summary.line;
      if (l === line) return mid;
      if (l < line) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
