/**
 * `gem-ts ui [--port N] [--play-dir DIR] [paths…]`: a local web app on 127.0.0.1 to read eval
 * transcripts and benchmark results, compare runs, and play any env by hand or watch a model play.
 * See docs/ui.md.
 */
import { startUiServer } from '../ui/uiServer.ts';
import { untilStopped } from './untilStopped.ts';

const USAGE = `usage: gem-ts ui [--port N] [--play-dir DIR] [--chat-template T] [PATH...]

Opens a web app on http://127.0.0.1:PORT (only this machine can reach it).
PATH: an eval output folder (gem-ts eval --out DIR), a transcripts.jsonl, a
benchmark result .json, or a folder of those. More can be opened from the page.

  --port N          port to listen on (default 8377; 0 picks a free one)
  --play-dir DIR    where episodes played in the page are saved (default runs/ui-play)
  --chat-template T how the chat-template view renders a turn's prompt: chatml
                    (default), qwen, llama3, a Jinja file, or a model's
                    tokenizer_config.json`;

class UsageError extends Error {}

export interface UiArgs {
  port: number;
  playDir: string;
  chatTemplate?: string;
  paths: string[];
}

export function parseArgs(args: string[]): UiArgs {
  const out: UiArgs = { port: 8377, playDir: 'runs/ui-play', paths: [] };
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    let value: string | undefined;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) [a, value] = [a.slice(0, eq), a.slice(eq + 1)];
    if (a === '--port' || a === '--play-dir' || a === '--chat-template') {
      value ??= args[++i];
      if (value === undefined) throw new UsageError(`${a} needs a value`);
      if (a === '--play-dir') out.playDir = value;
      else if (a === '--chat-template') out.chatTemplate = value;
      else {
        const n = Number(value);
        if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`--port needs a port number (0-65535), got '${value}'`);
        out.port = n;
      }
    } else if (a.startsWith('-')) {
      throw new UsageError(`unknown flag ${a}`);
    } else {
      out.paths.push(a);
    }
  }
  return out;
}

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let parsed: UiArgs;
  try {
    parsed = parseArgs(args);
  } catch (e) {
    console.error(`gem-ts ui: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  let ui;
  try {
    ui = await startUiServer({ port: parsed.port, playDir: parsed.playDir, chatTemplate: parsed.chatTemplate });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'EADDRINUSE' ? `port ${parsed.port} is in use; pick another with --port N (0 = any free port)` : err.message;
    console.error(`gem-ts ui: ${why}`);
    // A bad --chat-template is a bad argument; anything else is the machine's.
    return err.message.startsWith('--chat-template') ? 2 : 1;
  }
  let failed = false;
  for (const p of parsed.paths) {
    try {
      const runs = await ui.catalog.add(p);
      console.log(`opened ${runs.map((r) => r.name).join(', ')} (${p})`);
    } catch (e) {
      failed = true;
      console.error(`gem-ts ui: ${(e as Error).message}`);
    }
  }
  if (failed && parsed.paths.length && !ui.catalog.list().length) {
    await ui.close();
    return 2;
  }
  console.log(`gem-ts ui: open ${ui.url}/ in a browser (Ctrl-C to stop)`);
  await untilStopped();
  await ui.close();
  return 0;
}
