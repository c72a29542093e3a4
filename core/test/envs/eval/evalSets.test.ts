import { describe, expect, it } from 'vitest';
import { listEnvs, make } from '../../../src/index.ts';
import { PROMPT_TEMPLATES } from '../../../src/data/datasetOptions.ts';
import { registerSampleDatasets } from '../../data/sampleDatasets.ts';

describe('eval:* ids', () => {
  it('are the sets GEM registers, missing only those that need another family here', () => {
    const ids = listEnvs('eval:');
    for (const id of ['eval:MATH500', 'eval:AMC', 'eval:OlympiadBench', 'eval:Minerva', 'eval:AIME24', 'eval:QaOpen', 'eval:2Wiki', 'eval:PopQA', 'eval:TriviaQA', 'eval:HotpotQA', 'eval:Bamboogle', 'eval:NaturalQuestions', 'eval:Musique']) {
      expect(ids).toContain(id);
    }
  });

  it('say where GEM loads them from when their data is missing', () => {
    expect(() => make('eval:AMC')).toThrow(/'axon-rl\/math-eval', split 'amc'/);
    expect(() => make('eval:Bamboogle')).toThrow(/'axon-rl\/search-eval', split 'bamboogle'/);
    expect(() => make('eval:QaOpen')).toThrow(/'google-research-datasets\/nq_open', split 'validation'/);
  });

  it('math sets ask for a boxed answer by default (a chat model is told how to answer), or take another template', async () => {
    registerSampleDatasets(['eval:MATH500']);
    const first = await make('eval:MATH500').reset();
    expect(first.observation).toBe(`What is $17 \\times 23$?\n\n${PROMPT_TEMPLATES.boxed.split('\n\n')[1]}`);
    expect(first.observation).toContain('\\boxed{}');
    const custom = await make('eval:MATH500', { prompt_template: 'Q: {question}\nA: put the answer in \\boxed{}.' }).reset();
    expect(custom.observation).toBe('Q: What is $17 \\times 23$?\nA: put the answer in \\boxed{}.');
    expect(() => make('eval:MATH500', { prompt_template: 'no placeholder' })).toThrow(/prompt_template must be one of none, boxed or a text containing \{question\}/);
  });

  it('can grade a prose answer when asked (evaluation only)', async () => {
    registerSampleDatasets(['eval:MATH500']);
    const plain = make('eval:MATH500');
    await plain.reset({ options: { idx: 0 } });
    expect(await plain.step('17 times 23 is 391. The final answer is $391$.')).toMatchObject({ reward: 0 });
    const prose = make('eval:MATH500', { extract_from_prose: true });
    await prose.reset({ options: { idx: 0 } });
    expect(await prose.step('17 times 23 is 391. The final answer is $391$.')).toMatchObject({ reward: 1, info: { correct: true } });
    expect(() => make('math:Math12K', { dataset: [{ problem: 'p', answer: '1' }], extract_from_prose: true })).toThrow(/extract_from_prose is for evaluation only/);
  });

  it('walk their problems in file order and grade with their family\'s rules', async () => {
    registerSampleDatasets(['eval:MATH500', 'eval:TriviaQA']);
    const math = make('eval:MATH500', { seed: 5, prompt_template: 'none' });
    expect((await math.reset()).observation).toBe('What is $17 \\times 23$?');
    expect(await math.step('\\boxed{391}')).toMatchObject({ reward: 1 });
    expect((await math.reset()).observation).toBe('Simplify $\\frac{18}{24}$.');
    const qa = make('eval:TriviaQA');
    expect((await qa.reset()).observation).toContain('capital city of Australia');
    expect(await qa.step('<answer>Canberra</answer>')).toMatchObject({ reward: 1 });
  });
});
