/**
 * The HTTP side of `gem-ts ui`: serves the built web app (core/src/ui/app, built from core/ui) and a small JSON API on
 * 127.0.0.1 only. Requests whose Host is not this loopback address are refused (a web page cannot
 * reach it through DNS rebinding), and state-changing requests must be JSON POSTs from this origin.
 *
 *   GET  /api/runs                              open runs
 *   POST /api/runs {path}                        open more
 *   GET  /api/runs/:id/episodes?env&success&…    one page of the episode table + per-env summary + notices
 *   GET  /api/runs/:id/episodes/:line            one full episode record
 *   GET  /api/runs/:id/benchmark                 learning curves of a benchmark result
 *   GET  /api/compare?a&b                        episodes paired on (env id, seed), first divergence
 *   GET  /api/envs                               registered env ids (for Play)
 *   GET  /api/chat-templates; POST /api/chat-template {name, messages}   a turn's prompt as the model's template renders it
 *   POST /api/play {env_id, seed, options, player, …}     start an episode; GET /api/play/:id?since=v long-polls it;
 *   POST /api/play/:id/act {action}, /stop
 */
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRANSCRIPT_VERSION } from '../eval/transcript.ts';
import { TRANSCRIPT_FILE, TranscriptWriter } from '../eval/transcriptStore.ts';
import { listEnvs } from '../envs/defaultRegistry.ts';
import { loadChatTemplates } from './chatTemplates.ts';
import { compareRuns } from './compareRuns.ts';
import { envRows, queryFromParams, selectEpisodes } from './episodeTable.ts';
import { PlaySession, type PlayRequest } from './playSession.ts';
import { RunCatalog, type Run } from './runCatalog.ts';

/** The built web app (source in core/ui), checked in next to this file; rebuilt by `node core/ui/build.mjs`. */
export const DEFAULT_ASSETS = fileURLToPath(new URL('./app/', import.meta.url));

export interface UiServerOptions {
  port?: number;
  /** Where played episodes are saved (a transcripts.jsonl inside it). */
  playDir: string;
  assetsDir?: string;
  /** A built-in template name, a Jinja file or a tokenizer_config.json for the chat-template view. */
  chatTemplate?: string;
}

export interface UiServer {
  url: string;
  catalog: RunCatalog;
  server: Server;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new HttpError(415, 'expected application/json');
  let text = '';
  for await (const c of req) {
    text += c;
    if (text.length > 1 << 20) throw new HttpError(413, 'request too large');
  }
  try {
    const v = JSON.parse(text || '{}');
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* fall through */
  }
  throw new HttpError(400, 'the body is not a JSON object');
}

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const catalog = new RunCatalog();
  const templates = await loadChatTemplates(opts.chatTemplate);
  const assets = resolve(opts.assetsDir ?? DEFAULT_ASSETS);
  const sessions = new Map<string, PlaySession>();
  let sessionCounter = 0;
  const playFile = join(resolve(opts.playDir), TRANSCRIPT_FILE);
  let writer: TranscriptWriter | undefined;
  let origin = '';
  /** The same server as localhost:PORT (what a person may type). */
  let hostAlias = '';

  async function saveRecord(record: Parameters<TranscriptWriter['append']>[0]): Promise<{ run: string; line: number }> {
    await mkdir(resolve(opts.playDir), { recursive: true });
    writer ??= new TranscriptWriter(playFile);
    await writer.append(record);
    const run = catalog.addTranscript(playFile);
    await run.index!.refresh();
    // A refresh may already have been running when the line landed: once more picks it up.
    await run.index!.refresh();
    const all = run.index!.summaries;
    return { run: run.id, line: all[all.length - 1]?.line ?? 0 };
  }

  /** An eval folder's summary.json (settings, completeness, failed episodes), if it has one. */
  async function evalSummary(run: Run): Promise<Record<string, unknown> | undefined> {
    try {
      const s = JSON.parse(await readFile(join(dirname(run.path), 'summary.json'), 'utf8')) as Record<string, unknown>;
      const keep = ['model', 'base_url', 'mode', 'complete', 'env_ids', 'episodes_per_env', 'first_seed', 'settings', 'errors', 'written_at'];
      return Object.fromEntries(keep.filter((k) => k in s).map((k) => [k, s[k]]));
    } catch {
      return undefined;
    }
  }

  function evalRun(id: string): Run & { index: NonNullable<Run['index']> } {
    const run = catalog.get(decodeURIComponent(id));
    if (!run) throw new HttpError(404, `no open run '${id}'`);
    if (!run.index) throw new HttpError(400, `run '${id}' is a benchmark result, not a transcript`);
    return run as Run & { index: NonNullable<Run['index']> };
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split('/').filter(Boolean).slice(1);
    const method = req.method ?? 'GET';
    if (method === 'POST') {
      const from = req.headers.origin;
      if (from && from !== origin && from !== `http://${hostAlias}`) throw new HttpError(403, 'cross-origin request refused');
    }
    if (parts[0] === 'runs' && parts.length === 1) {
      if (method === 'POST') {
        const body = await readJson(req);
        if (typeof body.path !== 'string' || !body.path) throw new HttpError(400, 'path is required');
        try {
          const runs = await catalog.add(body.path);
          return sendJson(res, 200, { runs: runs.map((r) => r.id), all: catalog.list() });
        } catch (e) {
          throw new HttpError(400, (e as Error).message);
        }
      }
      return sendJson(res, 200, { runs: catalog.list(), transcript_version: TRANSCRIPT_VERSION });
    }
    if (parts[0] === 'runs' && parts[2] === 'episodes' && parts.length === 3) {
      const run = evalRun(parts[1]);
      // Picks up episodes appended since (a run still in progress), waiting a moment at most: a big
      // file answers with the rows indexed so far and the page asks again.
      await Promise.race([run.index.refresh(), new Promise((r) => setTimeout(r, 150))]);
      const all = run.index.summaries;
      const page = selectEpisodes(all, queryFromParams(url.searchParams));
      return sendJson(res, 200, {
        run: { id: run.id, name: run.name, path: run.path, kind: run.kind },
        progress: run.index.progress,
        notices: run.index.notices(),
        envs: envRows(all),
        models: [...new Set(all.map((e) => e.model))],
        summary: await evalSummary(run),
        ...page,
      });
    }
    if (parts[0] === 'runs' && parts[2] === 'episodes' && parts.length === 4) {
      const run = evalRun(parts[1]);
      const line = Number(parts[3]);
      const record = Number.isInteger(line) ? await run.index.episode(line) : undefined;
      if (!record) throw new HttpError(404, `no episode on line ${parts[3]} of ${run.name}`);
      const notices = [];
      if (typeof record.version === 'number' && record.version > TRANSCRIPT_VERSION) {
        notices.push({
          level: 'warning',
          message: `This episode was written in transcript format version ${record.version}; this viewer reads version ${TRANSCRIPT_VERSION}. Fields it does not know are shown under "other fields".`,
        });
      }
      return sendJson(res, 200, { run: { id: run.id, name: run.name }, line, ...run.index.neighbours(line), record, notices });
    }
    if (parts[0] === 'runs' && parts[2] === 'benchmark') {
      const run = catalog.get(decodeURIComponent(parts[1]));
      if (!run || run.kind !== 'benchmark') throw new HttpError(404, `no open benchmark result '${parts[1]}'`);
      return sendJson(res, 200, { run: { id: run.id, name: run.name, path: run.path }, ...(await catalog.benchmark(run)) });
    }
    if (parts[0] === 'compare') {
      const a = evalRun(url.searchParams.get('a') ?? '');
      const b = evalRun(url.searchParams.get('b') ?? '');
      await Promise.all([a.index.refresh(), b.index.refresh()]);
      return sendJson(res, 200, { a: { id: a.id, name: a.name }, b: { id: b.id, name: b.name }, ...(await compareRuns(a.index, b.index)) });
    }
    if (parts[0] === 'envs') return sendJson(res, 200, { envs: listEnvs() });
    if (parts[0] === 'chat-templates') return sendJson(res, 200, { names: templates.names, default: templates.default });
    if (parts[0] === 'chat-template' && method === 'POST') {
      const body = await readJson(req);
      const messages = body.messages;
      if (typeof body.name !== 'string' || !Array.isArray(messages)) throw new HttpError(400, 'name and messages are required');
      try {
        return sendJson(res, 200, { text: templates.render(body.name, messages as Parameters<typeof templates.render>[1]) });
      } catch (e) {
        throw new HttpError(400, (e as Error).message);
      }
    }
    if (parts[0] === 'play') return playApi(req, res, url, parts.slice(1), method);
    throw new HttpError(404, `no API route ${url.pathname}`);
  }

  async function playApi(req: IncomingMessage, res: ServerResponse, url: URL, parts: string[], method: string): Promise<void> {
    if (parts.length === 0 && method === 'POST') {
      const body = (await readJson(req)) as Partial<PlayRequest>;
      if (typeof body.env_id !== 'string' || !body.env_id) throw new HttpError(400, 'env_id is required');
      const seed = Number(body.seed ?? 0);
      if (!Number.isInteger(seed)) throw new HttpError(400, 'seed must be an integer');
      const player = body.player === 'model' ? 'model' : 'human';
      const options = body.options ?? {};
      if (typeof options !== 'object' || Array.isArray(options) || options === null) throw new HttpError(400, 'options must be a JSON object of the env\'s make options');
      const id = `p${++sessionCounter}`;
      let session: PlaySession;
      try {
        session = new PlaySession(id, { ...body, env_id: body.env_id, seed, player, options } as PlayRequest, saveRecord);
      } catch (e) {
        throw new HttpError(400, (e as Error).message);
      }
      sessions.set(id, session);
      // Keep the newest 50 sessions.
      for (const old of sessions.keys()) {
        if (sessions.size <= 50) break;
        sessions.get(old)?.stop();
        sessions.delete(old);
      }
      return sendJson(res, 200, { id });
    }
    const session = sessions.get(parts[0] ?? '');
    if (!session) throw new HttpError(404, `no play session '${parts[0]}'`);
    if (parts[1] === 'act' && method === 'POST') {
      const body = await readJson(req);
      if (typeof body.action !== 'string') throw new HttpError(400, 'action must be a string');
      if (!session.act(body.action)) throw new HttpError(409, 'it is not your turn');
      return sendJson(res, 200, { ok: true });
    }
    if (parts[1] === 'stop' && method === 'POST') {
      session.stop();
      return sendJson(res, 200, { ok: true });
    }
    const since = Number(url.searchParams.get('since') ?? -1);
    return sendJson(res, 200, await session.poll(since, Math.min(20_000, Number(url.searchParams.get('wait') ?? 15_000))));
  }

  async function asset(res: ServerResponse, pathname: string): Promise<void> {
    const rel = normalize(decodeURIComponent(pathname)).replace(/^[/\\]+/, '');
    let file = resolve(assets, rel || 'index.html');
    if (!file.startsWith(assets + sep) && file !== assets) throw new HttpError(403, 'outside the app folder');
    const st = await stat(file).catch(() => undefined);
    // Unknown paths get the app (it routes on the hash); missing assets get a plain 404.
    if (!st?.isFile()) {
      if (rel.startsWith('assets')) throw new HttpError(404, 'no such asset');
      file = join(assets, 'index.html');
    }
    if (!existsSync(file)) {
      throw new HttpError(500, `the web app is not built (${file} is missing): run 'node core/ui/build.mjs'`);
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'cache-control': rel.startsWith('assets') ? 'max-age=31536000, immutable' : 'no-cache',
    });
    createReadStream(file).pipe(res);
  }

  const server = createServer((req, res) => {
    const host = req.headers.host ?? '';
    const url = new URL(req.url ?? '/', `http://${host || '127.0.0.1'}`);
    const handle = async () => {
      if (host !== new URL(origin).host && host !== hostAlias) {
        throw new HttpError(421, `this server answers only on ${origin}`);
      }
      if (url.pathname.startsWith('/api/')) return api(req, res, url);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'method not allowed');
      return asset(res, url.pathname);
    };
    handle().catch((e: unknown) => {
      const status = e instanceof HttpError ? e.status : 500;
      if (!res.headersSent) sendJson(res, status, { error: (e as Error).message });
      else res.destroy();
    });
  });
  // Episodes played in earlier sessions are there to read.
  if (existsSync(playFile)) catalog.addTranscript(playFile);
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  hostAlias = `localhost:${port}`;
  return {
    url: origin,
    catalog,
    server,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sessions.values()) s.stop();
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
