/** QA with GEM's search tool: the qa env under the search_tool wrappers, over the local BM25 demo corpus. */
import { describe, expect, it } from 'vitest';
import { make } from '../../../src/index.ts';
import { applyWrappers } from '../../../src/envs/defaultWrappers.ts';
import { DEMO_SEARCH_CORPUS } from '../../../src/tools/search/localSearch.ts';

const rows = [{ question: 'What is the capital of Germany?', answer: ['Berlin'] }];

function searchEnv(wrapper: string) {
  return applyWrappers(make('qa:HotpotQA', { dataset: rows }), [wrapper], { search_corpus: DEMO_SEARCH_CORPUS });
}

describe('qa:* with search_tool', () => {
  it('shows the question with the search instructions, answers searches, then grades the answer', async () => {
    const env = searchEnv('search_tool');
    const { observation } = await env.reset();
    expect(observation).toContain('Question: What is the capital of Germany?');
    expect(observation).toContain('<search>');
    const search = await env.step('<think>I should look it up.</think><search>capital of Germany</search>');
    expect(search).toMatchObject({ terminated: false, truncated: false, reward: 0.3 });
    expect(search.observation).toMatch(/Berlin/);
    expect(await env.step('<answer>Berlin</answer>')).toMatchObject({ reward: 1, terminated: true, info: { correct: true } });
  });

  it('grades a wrong or missing answer 0 after searching', async () => {
    const env = searchEnv('search_tool_no_int_reward');
    await env.reset();
    expect(await env.step('<search>Germany</search>')).toMatchObject({ reward: 0, terminated: false });
    expect(await env.step('<answer>Bonn</answer>')).toMatchObject({ reward: 0, terminated: true });
    await env.reset();
    expect(await env.step('I think it is Berlin.')).toMatchObject({ reward: 0, terminated: true });
  });
});
