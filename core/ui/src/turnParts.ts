/**
 * What a turn looked like to the model, rebuilt from the transcript: the conversation sent (in chat
 * mode: system, every earlier user/reply pair, this turn's user; in the concat modes: system and this
 * turn's single prompt), and the part of the reply the env or a tool actually parsed. (The same
 * conversation through a chat template is rendered by the server: core/src/ui/chatTemplates.ts.)
 */
import { lastBoxed } from '../../src/envs/games/common.ts';
import type { EpisodeRecord } from './api.ts';

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The messages sent on turn `t` (0-based). */
export function messagesAt(ep: Pick<EpisodeRecord, 'system' | 'mode' | 'turns'>, t: number): Message[] {
  const out: Message[] = ep.system ? [{ role: 'system', content: ep.system }] : [];
  if (ep.mode === 'chat') {
    for (let i = 0; i < t; i++) out.push({ role: 'user', content: ep.turns[i].user }, { role: 'assistant', content: ep.turns[i].reply });
  }
  out.push({ role: 'user', content: ep.turns[t]?.user ?? '' });
  return out;
}

export interface Span {
  start: number;
  end: number;
  /** What the span is: the boxed answer games and math graders read, or a tool call. */
  kind: 'boxed' | 'tool';
}

/** The tool-call forms the tool wrappers look for (python_tool, search_tool, mcp_tool). */
const TOOL_CALLS = [/<python>[\s\S]*?<\/python>/, /```python\n[\s\S]*?```/, /<search>[\s\S]*?<\/search>/, /<tool_call>[\s\S]*?<\/tool_call>/];

/** The parsed part of a reply: its tool call on a tool turn, else the content of its last \boxed{…}. */
export function parsedSpan(reply: string, toolTurn: boolean): Span | undefined {
  if (toolTurn) {
    let best: RegExpExecArray | undefined;
    for (const re of TOOL_CALLS) {
      const m = re.exec(reply);
      if (m && (!best || m.index + m[0].length < best.index + best[0].length)) best = m;
    }
    if (best) return { start: best.index, end: best.index + best[0].length, kind: 'tool' };
  }
  const inner = lastBoxed(reply);
  if (inner === undefined) return undefined;
  const start = reply.lastIndexOf('\\boxed{') + '\\boxed{'.length;
  return { start, end: start + inner.length, kind: 'boxed' };
}
