/** The observation wrappers: what text the LLM sees after each turn, under each GEM name. */
import { describe, expect, it } from 'vitest';
import type { Env, Info, ResetResult, StepResult } from '../../src/core/env.ts';
import { BaseEnv } from '../../src/core/baseEnv.ts';
import { applyWrappers } from '../../src/envs/defaultWrappers.ts';
import { make } from '../../src/envs/defaultRegistry.ts';
import '../../src/envs/index.ts';

/** Scripted feedback with GEM's info conventions (suffix, parsed_action, use_tool). */
class ScriptEnv extends BaseEnv<{ t: number }> {
  constructor(private readonly infos: Info[] = []) {
    super(0);
  }
  protected newEpisode(): ResetResult {
    this.state = { t: 0 };
    return { observation: 'Task', info: { suffix: '[board 0]' } };
  }
  protected applyAction(action: string): StepResult {
    this.state.t += 1;
    const t = this.state.t;
    return { observation: `fb${t}(${action})`, reward: 0, terminated: false, truncated: false, info: { suffix: `[board ${t}]`, ...this.infos[t - 1] } };
  }
  sampleRandomAction(): string {
    return 'x';
  }
  protected clone(): ScriptEnv {
    return new ScriptEnv(this.infos);
  }
}

async function transcript(env: Env, actions: string[]): Promise<string[]> {
  const out = [(await env.reset()).observation];
  for (const a of actions) out.push((await env.step(a)).observation);
  return out;
}

describe('concat', () => {
  it('joins every observation so far, newline-terminated, then the current suffix', async () => {
    const env = applyWrappers(new ScriptEnv(), ['concat']);
    expect(await transcript(env, ['A', 'B'])).toEqual(['Task\n[board 0]', 'Task\nfb1(A)\n[board 1]', 'Task\nfb1(A)\nfb2(B)\n[board 2]']);
  });

  it('max_history_length keeps the last N + 1 observations', async () => {
    const env = applyWrappers(new ScriptEnv(), ['concat'], { max_history_length: 1 });
    expect((await transcript(env, ['A', 'B', 'C'])).at(-1)).toBe('fb2(B)\nfb3(C)\n[board 3]');
  });
});

describe('concat_with_action', () => {
  it('interleaves observations and actions; a parsed_action replaces the raw one', async () => {
    const env = applyWrappers(new ScriptEnv([{}, { parsed_action: '\\boxed{7}' }]), ['concat_with_action']);
    const t = await transcript(env, ['think… A', 'long reasoning \\boxed{7}']);
    expect(t[1]).toBe('Task\nthink… A\nfb1(think… A)\n[board 1]');
    expect(t[2]).toBe('Task\nthink… A\nfb1(think… A)\n\\boxed{7}\nfb2(long reasoning \\boxed{7})\n[board 2]');
  });

  it('max_history_length 0 keeps only the latest observation; prefix frames the text', async () => {
    const env = applyWrappers(new ScriptEnv([{ prefix: 'P:' }, { prefix: 'P:' }]), ['concat_with_action'], { maxHistoryLength: 0 });
    expect((await transcript(env, ['A', 'B'])).at(-1)).toBe('P:fb2(B)\n[board 2]');
  });
});

describe('concat_chat', () => {
  it('renders user/assistant turns, tool observations as tool turns, suffix on its own line inside the last user turn', async () => {
    const env = applyWrappers(new ScriptEnv([{ use_tool: true }, {}]), ['concat_chat'], { chat_template: 'chatml' });
    const t = await transcript(env, ['A', 'B']);
    expect(t[0]).toBe('<|im_start|>user\nTask\n[board 0]<|im_end|>\n<|im_start|>assistant\n');
    expect(t[2]).toBe(
      '<|im_start|>user\nTask<|im_end|>\n<|im_start|>assistant\nA<|im_end|>\n' +
        '<|im_start|>tool\nfb1(A)<|im_end|>\n<|im_start|>assistant\nB<|im_end|>\n' +
        '<|im_start|>user\nfb2(B)\n[board 2]<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('needs a chat template, and names the built-ins', () => {
    expect(() => applyWrappers(new ScriptEnv(), ['concat_chat'])).toThrowError(/chat_template/);
    expect(() => applyWrappers(new ScriptEnv(), ['concat_chat'], { chat_template: 'mistral' })).toThrowError(
      /neither a built-in \(chatml, qwen, llama3\) nor a Jinja template/,
    );
  });
});

describe('concat_chat_on_reset', () => {
  it('renders only the first observation as a chat prompt, then appends turns as text', async () => {
    const env = applyWrappers(new ScriptEnv(), ['concat_chat_on_reset'], { chat_template: 'llama3' });
    const t = await transcript(env, ['A']);
    const first = '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nTask\n[board 0]<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n';
    expect(t[0]).toBe(first);
    expect(t[1]).toBe(`${first}A\nfb1(A)\n[board 1]`);
  });
});

describe('history wrappers and the Env contract', () => {
  it('keep sync twins over a sync env and agree with the async methods', async () => {
    const a = applyWrappers(new ScriptEnv(), ['concat_with_action', 'episode_tracking']);
    const b = applyWrappers(new ScriptEnv(), ['concat_with_action', 'episode_tracking']);
    expect(typeof a.stepSync).toBe('function');
    const sync = [b.resetSync!().observation, b.stepSync!('A').observation, b.stepSync!('B').observation];
    expect(sync).toEqual(await transcript(a, ['A', 'B']));
  });

  it('spawn({sameState}) copies the history', async () => {
    const env = applyWrappers(new ScriptEnv(), ['concat']);
    await env.reset();
    await env.step('A');
    const child = env.spawn({ sameState: true });
    expect((await child.step('B')).observation).toBe((await env.step('B')).observation);
  });
});

describe('history bookkeeping', () => {
  /** The text modes computed from scratch: the last N + 1 observations and N actions. */
  function expected(mode: 'concat' | 'concat_with_action', n: number | undefined, actions: string[]): string {
    const obs = ['Task', ...actions.map((a, i) => `fb${i + 1}(${a})`)];
    const keep = n === undefined ? obs.length : n + 1;
    const o = obs.slice(-keep);
    const a = actions.slice(actions.length - (o.length - 1));
    const parts = mode === 'concat' ? o : o.flatMap((x, i) => (i < a.length ? [x, a[i]] : [x]));
    return parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('') + `[board ${actions.length}]`;
  }

  it.each([
    ['concat', undefined],
    ['concat', 0],
    ['concat', 2],
    ['concat_with_action', undefined],
    ['concat_with_action', 0],
    ['concat_with_action', 3],
  ] as const)('%s with max_history_length %s matches a from-scratch rendering at every turn', async (mode, n) => {
    const env = applyWrappers(new ScriptEnv(), [mode], n === undefined ? {} : { max_history_length: n });
    const actions = ['A', 'B\n', 'C', 'D', 'E', 'F'];
    const t = await transcript(env, actions);
    for (let k = 0; k <= actions.length; k++) expect(t[k]).toBe(expected(mode, n, actions.slice(0, k)));
  });

  it('concat_chat_on_reset drops the chat-rendered first turn once the history is full', async () => {
    const env = applyWrappers(new ScriptEnv(), ['concat_chat_on_reset'], { chat_template: 'chatml', max_history_length: 1 });
    const t = await transcript(env, ['A', 'B']);
    expect(t[1]).toMatch(/^<\|im_start\|>user\nTask\n\[board 0\]<\|im_end\|>\n<\|im_start\|>assistant\nA\nfb1\(A\)\n\[board 1\]$/);
    expect(t[2]).toBe('fb1(A)\nB\nfb2(B)\n[board 2]');
  });
});

describe('a suffix after a tool prompt', () => {
  it('starts its own line in every history mode (python_tool instructions end with a full stop)', async () => {
    for (const mode of ['concat', 'concat_with_action', 'concat_chat', 'concat_chat_on_reset'] as const) {
      const env = applyWrappers(make('game:GuessTheNumber-v0'), ['python_tool', mode], mode.startsWith('concat_chat') ? { chat_template: 'chatml' } : {});
      const { observation } = await env.reset({ seed: 1 });
      expect(observation, mode).toContain('inside \\boxed{}.\nEnter your next guess.');
      await env.close();
    }
  });
});
