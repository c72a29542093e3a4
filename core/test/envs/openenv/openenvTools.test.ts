/**
 * `openenv:Remote-v0` with `tools: 'mcp'`: the remote env's MCP tools offered as gem-ts tools, played
 * against gem-ts's own OpenEnv front door, which serves an env's tool wrappers (`python_tool`) as
 * OpenEnv's MCP tools. The tool calls the front door's session ran are counted against the tool
 * turns gem-ts reported.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { make } from '../../../src/index.ts';
import { builtinCatalog } from '../../../src/envs/builtinCatalog.ts';
import { OPENENV_ID } from '../../../src/envs/openenv/index.ts';
import type { OpenEnvEnv } from '../../../src/envs/openenv/openEnvEnv.ts';
import { OpenEnvServer } from '../../../src/server/openenv/openEnvServer.ts';
import { OpenEnvSession } from '../../../src/server/openenv/session.ts';

const MATH = 'math:Math12K';
const ROWS = [{ problem: 'What is 6*7?', answer: '42' }];
const catalog = builtinCatalog();
let server: OpenEnvServer;
let root = '';

beforeAll(async () => {
  server = new OpenEnvServer({ catalog: catalog.envs, wrappers: catalog.wrappers, host: '127.0.0.1', port: 0 });
  root = await server.start();
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server.close();
});

const call = (name: string, args: string) => `Let me check.\n<tool_call>\n<tool_name>${name}</tool_name>\n<arguments>${args}</arguments>\n</tool_call>\nthen more text`;

describe("openenv:Remote-v0 with tools: 'mcp' against gem-ts's OpenEnv front door", () => {
  it("lists the remote's tools at reset, runs tool calls as call_tool steps, and reports bad calls in the observation", async () => {
    const seen: string[] = [];
    const original = OpenEnvSession.prototype.callTool;
    const spy = vi.spyOn(OpenEnvSession.prototype, 'callTool').mockImplementation(function (this: OpenEnvSession, name, args) {
      seen.push(name);
      return original.call(this, name, args);
    });
    const env = make(OPENENV_ID, { url: `${root}/envs/${MATH}`, tools: 'mcp', reset_data: { options: { dataset: ROWS }, wrappers: ['python_tool'] } });
    const first = await env.reset({ seed: 0 });
    expect(first.observation).toContain('What is 6*7?');
    expect(first.observation).toContain('# Tool-Use Instructions');
    expect(first.observation).toContain('"name":"python"');
    expect(first.info).toMatchObject({ use_tool: false, tool_use_counter: 0, tool_success_counter: 0 });

    const ok = await env.step(call('python', '{"code": "print(6*7)"}'));
    expect(ok).toMatchObject({ observation: '42\n', reward: 0, terminated: false, truncated: false });
    expect(ok.info).toMatchObject({ use_tool: true, tool_type: 'mcp', tool_use_counter: 1, tool_success_counter: 1 });
    expect(ok.info.parsed_action).toBe(call('python', '{"code": "print(6*7)"}').replace('\nthen more text', '').replace('Let me check.\n', ''));
    expect(ok.info.tool_error).toBeUndefined();

    const raising = await env.step(call('python', '{"code": "raise ValueError(\\"nope\\")"}'));
    expect(raising.observation).toMatch(/^\[Tool execution error: .*ValueError: nope/s);
    expect(raising.info).toMatchObject({ use_tool: true, tool_use_counter: 2, tool_success_counter: 1 });

    const unknown = await env.step(call('bash', '{"cmd": "ls"}'));
    expect(unknown.observation).toMatch(/^\[Tool error \(tool_not_found\) calling 'bash': .*\] Available tools: python$/);
    expect(unknown.info.tool_error).toBe(unknown.observation);
    const badArgs = await env.step(call('python', '{"src": 1}'));
    expect(badArgs.observation).toMatch(/^\[Tool error \(invalid_args\) calling 'python': /);
    // Arguments that are not a JSON object: answered here, nothing sent.
    const notJson = await env.step(call('python', '{print(1)}'));
    expect(notJson.observation).toMatch(/^\[Invalid tool call: the arguments are not valid JSON/);
    expect(notJson).toMatchObject({ reward: 0, terminated: false, truncated: false });
    expect(notJson.info).toMatchObject({ use_tool: true, tool_use_counter: 5, tool_success_counter: 1 });

    // An action without a tool call is the env's step: the answer ends the episode with its reward.
    const answer = await env.step('The product is \\boxed{42}');
    expect(answer).toMatchObject({ reward: 1, terminated: true });
    expect(answer.info).toMatchObject({ use_tool: false, tool_use_counter: 5 });
    // Four calls reached the server's tools; only the answer was an env step.
    expect(seen).toEqual(['python', 'python', 'bash', 'python']);
    expect(await (env.unwrapped as unknown as OpenEnvEnv).state()).toMatchObject({ step_count: 1, done: true });

    // The next episode starts its counters again and lists the tools again.
    const again = await env.reset({ seed: 0 });
    expect(again.info).toMatchObject({ tool_use_counter: 0 });
    expect(again.observation).toContain('"name":"python"');
    await env.close();
    spy.mockRestore();
  }, 60_000);

  it('an env with no MCP tools is a configuration error at reset, naming the URL', async () => {
    const url = `${root}/envs/game:GuessTheNumber-v0-easy`;
    const env = make(OPENENV_ID, { url, tools: 'mcp' });
    await expect(env.reset({ seed: 1 })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining(`${url} lists no MCP tools`) });
    await env.close();
  });

  it('without tools a <tool_call> block is plain action text', async () => {
    const env = make(OPENENV_ID, { url: `${root}/envs/${MATH}`, reset_data: { options: { dataset: ROWS } } });
    const first = await env.reset({ seed: 0 });
    expect(first.observation).not.toContain('Tool-Use Instructions');
    const r = await env.step(call('python', '{"code": "print(1)"}'));
    expect(r).toMatchObject({ reward: 0, terminated: true });
    expect(r.info.use_tool).toBeUndefined();
    await env.close();
  });
});
