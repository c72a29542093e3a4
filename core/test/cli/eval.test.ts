/**
 * `gem-ts eval` and prompt templates: it says which template each math env is played with, and the
 * eval:* math sets send an answer instruction by default, so a chat model that follows it is graded.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run, templateLines } from '../../src/cli/eval.ts';
import { registerSampleDatasets } from '../data/sampleDatasets.ts';
import { startMockServer, type MockServer, type Policy } from '../eval/mockChatServer.ts';

const ANSWERS: Record<string, string> = { '17 \\times 23': '391', '\\frac{18}{24}': '\\frac{3}{4}', 'square root of 72': '6\\sqrt{2}' };

/** Answers correctly in a box only when the prompt asks for a box; otherwise in prose. */
const followsInstructions: Policy = (messages) => {
  const prompt = messages[messages.length - 1].content as string;
  const answer = Object.entries(ANSWERS).find(([k]) => prompt.includes(k))?.[1] ?? '0';
  return prompt.includes('\\boxed{}') ? `Reasoning… so the answer is $\\boxed{${answer}}$.` : `The final answer is $${answer}$.`;
};

let server: MockServer;
let dir: string;
beforeAll(async () => {
  registerSampleDatasets(['eval:MATH500']);
  server = await startMockServer({ policy: followsInstructions });
  dir = await mkdtemp(join(tmpdir(), 'gem-eval-template-'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

async function evalRun(args: string[]): Promise<{ code: number; err: string; out: string }> {
  const err: string[] = [];
  const out: string[] = [];
  const w = vi.spyOn(process.stderr, 'write').mockImplementation((m: unknown) => (err.push(String(m)), true));
  const l = vi.spyOn(console, 'log').mockImplementation((m: unknown) => void out.push(String(m)));
  try {
    const code = await run(['--base-url', server.url, '--model', 'mock', '--env', 'eval:MATH500', '--episodes', '3', '--quiet', ...args]);
    return { code, err: err.join(''), out: out.join('\n') };
  } finally {
    w.mockRestore();
    l.mockRestore();
  }
}

describe('gem-ts eval prompt templates', () => {
  it('names the template of every env id that has one, and nothing for the others', () => {
    expect(templateLines(['eval:MATH500', 'math:GSM8K', 'game:GuessTheNumber-v0-easy', 'no:such-id'], {})).toEqual([
      expect.stringMatching(/^eval:MATH500: prompt template 'boxed': .*\\\\boxed\{\}/),
      expect.stringMatching(/^math:GSM8K: prompt template 'none' \(the bare problem; --option prompt_template=boxed/),
    ]);
    expect(templateLines(['eval:AMC'], { prompt_template: 'Q: {question}', extract_from_prose: true })).toEqual([
      'eval:AMC: custom prompt template "Q: {question}"',
      'eval:AMC: answers without \\boxed{} are graded by the final answer their prose states',
    ]);
  });

  it('eval:MATH500 sends the boxed instruction by default, says so, and the answers are graded', async () => {
    const r = await evalRun(['--out', join(dir, 'boxed')]);
    expect(r.code).toBe(0);
    expect(r.err).toContain("eval:MATH500: prompt template 'boxed'");
    const prompts = server.requests.map((q) => (q.body as { messages: { content: string }[] }).messages.at(-1)!.content);
    expect(prompts.length).toBeGreaterThanOrEqual(3);
    expect(prompts.every((p) => p.includes('\\boxed{}'))).toBe(true);
    expect(r.out).toMatch(/eval:MATH500 \| 3 \| 100\.0% \(3\)/);
  });

  it('with the bare problem the same model answers in prose: 0 unless prose extraction is on', async () => {
    const bare = await evalRun(['--option', 'prompt_template=none', '--out', join(dir, 'bare')]);
    expect(bare.err).toContain("prompt template 'none' (the bare problem");
    expect(bare.out).toMatch(/eval:MATH500 \| 3 \| 0\.0% \(0\)/);
    const prose = await evalRun(['--option', 'prompt_template=none', '--option', 'extract_from_prose=true', '--out', join(dir, 'prose')]);
    expect(prose.err).toContain('graded by the final answer their prose states');
    expect(prose.out).toMatch(/eval:MATH500 \| 3 \| 100\.0% \(3\)/);
  });
});
