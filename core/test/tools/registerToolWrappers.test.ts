import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/envs/index.ts';
import { make } from '../../src/envs/defaultRegistry.ts';
import { applyWrappers, listWrappers } from '../../src/envs/defaultWrappers.ts';
import { closeSharedSandbox } from '../../src/sandbox/sandbox.ts';
import { DEMO_SEARCH_CORPUS } from '../../src/tools/search/localSearch.ts';
import { PYTHON_TOOL_INSTRUCTIONS } from '../../src/tools/python/pythonCodeTool.ts';
import { SEARCH_TOOL_INSTRUCTIONS } from '../../src/tools/search/searchTool.ts';
import { bwrapWorks } from '../sandbox/sandboxSupport.ts';

const GAME = 'game:GuessTheNumber-v0-easy';
const FIXTURE = fileURLToPath(new URL('./fixtures/mcpServer.ts', import.meta.url));

afterAll(() => closeSharedSandbox());

describe('tool wrapper names', () => {
  it("registers GEM's names and ours", () => {
    for (const name of [
      'python_tool',
      'python_tool_no_int_reward',
      'python_tool_no_int_reward_last_line_error',
      'search_tool',
      'search_tool_no_int_reward',
      'mcp_tool',
    ]) {
      expect(listWrappers()).toContain(name);
    }
  });

  it.skipIf(!bwrapWorks())('python_tool: 0.05 per call + 0.25 on success, 5 uses', async () => {
    const env = applyWrappers(make(GAME, { seed: 1 }), ['python_tool', 'concat']);
    expect(env.toString()).toBe(`<concat<python_tool<${GAME}>>>`);
    const r0 = await env.reset({ seed: 1 });
    expect(r0.observation).toContain(PYTHON_TOOL_INSTRUCTIONS);
    const r1 = await env.step('<python>print(sum(range(5)))</python>');
    expect(r1.reward).toBeCloseTo(0.3);
    expect(r1.info).toMatchObject({ use_tool: true, tool_type: 'python_code', tool_use_counter: 1 });
    expect(r1.observation).toContain('Code execution result: 10\n');
    const r2 = await env.step('<python>raise SystemExit(2)</python>');
    expect(r2.reward).toBeCloseTo(0.05);
    await env.close();
  });

  it.skipIf(!bwrapWorks())('python_tool options override the preset', async () => {
    const env = applyWrappers(make(GAME), ['python_tool_no_int_reward'], { max_tool_uses: 1, python_timeout: 1 });
    await env.reset({ seed: 3 });
    const r = await env.step('<python>print(1)</python>');
    expect(r.reward).toBe(0);
    expect(r.observation).toContain('Reached the maximum number of tool use.');
    // Budget spent: the next code block goes to the game, which sees no \boxed guess.
    const r2 = await env.step('<python>print(2)</python>');
    expect(r2.info.use_tool).toBe(false);
  });

  it('search_tool over a local corpus: 0.3 per search', async () => {
    const env = applyWrappers(make(GAME), ['search_tool'], { search_corpus: DEMO_SEARCH_CORPUS, search_topk: 1 });
    const r0 = await env.reset({ seed: 0 });
    expect(r0.observation.endsWith(`\n${SEARCH_TOOL_INSTRUCTIONS}`)).toBe(true);
    const r = await env.step('<search>Which planet has the Great Red Spot?</search>');
    expect(r.reward).toBeCloseTo(0.3);
    expect(r.observation).toMatch(/^Doc 1\(Title: Jupiter\) /);
    expect(r.info.tool_type).toBe('search');
  });

  it('search_tool says how to configure it when it has no retriever, and rejects unknown options', () => {
    const saved = [process.env.SEARCH_URL, process.env.GEM_TS_SEARCH_CORPUS];
    delete process.env.SEARCH_URL;
    delete process.env.GEM_TS_SEARCH_CORPUS;
    try {
      expect(() => applyWrappers(make(GAME), ['search_tool'])).toThrow(/search_tool needs a retriever: set search_url/);
    } finally {
      if (saved[0] !== undefined) process.env.SEARCH_URL = saved[0];
      if (saved[1] !== undefined) process.env.GEM_TS_SEARCH_CORPUS = saved[1];
    }
    expect(() => applyWrappers(make(GAME), ['search_tool'], { search_corpus: DEMO_SEARCH_CORPUS, search_top_k: 2 })).toThrow(/search_top_k/);
    expect(() => applyWrappers(make(GAME), ['search_tool_no_int_reward'], { search_corpus: DEMO_SEARCH_CORPUS, tool_reward: 'x' })).toThrow(
      /tool_reward/,
    );
  });

  it('mcp_tool: one shared server for every env of the config, closed with the last env', async () => {
    const mcp_config = { command: process.execPath, args: ['--import', 'tsx', FIXTURE] };
    const a = applyWrappers(make(GAME), ['mcp_tool'], { mcp_config });
    const b = applyWrappers(make(GAME), ['mcp_tool'], { mcp_config });
    const r0 = await a.reset({ seed: 0 });
    expect(r0.observation).toContain('# Tool-Use Instructions');
    await b.reset({ seed: 0 });
    const r = await b.step('<tool_call><tool_name>add</tool_name><arguments>{"a": 1, "b": 2}</arguments></tool_call>');
    expect(r.observation).toBe('3');
    expect(r.reward).toBe(0);
    await a.close();
    expect((await b.step('<tool_call><tool_name>echo</tool_name><arguments>{"text": "still up"}</arguments></tool_call>')).observation).toBe('still up');
    await b.close();
    expect(() => applyWrappers(make(GAME), ['mcp_tool'])).toThrow(/mcp_config/);
  });
});
