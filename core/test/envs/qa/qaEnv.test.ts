import { describe, expect, it } from 'vitest';
import { checkEnv, listEnvs, make } from '../../../src/index.ts';
import { sampleDatasetPath } from '../../../src/data/taskCatalog.ts';

const rows = [
  { question: 'Who wrote Hamlet?', answer: ['William Shakespeare', 'Shakespeare'] },
  { question: 'How many legs does a spider have?', answer: 8 },
];

async function answer(action: string, idx = 0, id = 'qa:HotpotQA') {
  const env = make(id, { dataset: rows });
  await env.reset({ options: { idx } });
  return env.step(action);
}

describe('qa:* envs', () => {
  it('prompts with think/answer instructions and the question', async () => {
    const env = make('qa:HotpotQA', { dataset: rows });
    const { observation, info } = await env.reset({ options: { idx: 0 } });
    expect(observation).toMatch(/<think>[\s\S]*<answer>[\s\S]*Question: Who wrote Hamlet\?$/);
    expect(info).toEqual({});
  });

  it('scores a correct answer 1 against any gold, numbers included', async () => {
    expect(await answer('<think>…</think><answer>shakespeare</answer>')).toMatchObject({ reward: 1, info: { correct: true } });
    expect(await answer('<answer>The William Shakespeare.</answer>')).toMatchObject({ reward: 1 });
    expect(await answer('<answer>8</answer>', 1)).toMatchObject({ reward: 1 });
  });

  it('scores wrong answers 0', async () => {
    expect(await answer('<answer>Marlowe</answer>')).toMatchObject({ reward: 0, info: { correct: false } });
    expect(await answer('<answer>eight</answer>', 1)).toMatchObject({ reward: 0 });
  });

  it('scores malformed answers 0 without a format penalty: no tags, unclosed tag, boxed only', async () => {
    for (const bad of ['Shakespeare', '<answer>Shakespeare', '\\boxed{Shakespeare}', '']) {
      expect(await answer(bad)).toMatchObject({ reward: 0, terminated: true, truncated: true, info: { correct: false } });
    }
  });

  it('grades only the last answer tag', async () => {
    expect(await answer('<answer>Shakespeare</answer> no wait <answer>Marlowe</answer>')).toMatchObject({ reward: 0 });
  });

  // Before: a float gold 100.0 was compared as the text "100" (so "100.0" failed), and a boolean
  // gold column (RuleTaker-style labels) was rejected at reset with DATASET_INVALID.
  it('grades typed gold columns by meaning: floats, booleans, lists of them', async () => {
    const typed = [
      { question: 'Boiling point of water in C?', answer: 100.0 },
      { question: 'Is the sky blue?', answer: true },
      { question: 'Roots of x^2 = 4?', answer: [2.0, -2.0] },
      { question: 'Is 7 even?', answer: [false] },
    ];
    const grade = async (idx: number, reply: string, id = 'qa:HotpotQA') => {
      const env = make(id, { dataset: typed });
      await env.reset({ options: { idx } });
      return (await env.step(reply)).reward;
    };
    expect(await grade(0, '<answer>100</answer>')).toBe(1);
    expect(await grade(0, '<answer>100.0</answer>')).toBe(1);
    expect(await grade(0, '<answer>1000</answer>')).toBe(0);
    expect(await grade(1, '<answer>yes</answer>')).toBe(1);
    expect(await grade(1, '<answer>False</answer>')).toBe(0);
    expect(await grade(1, 'So \\boxed{True}', 'logic:RuleTaker-d0')).toBe(1);
    expect(await grade(2, '<answer>-2</answer>')).toBe(1);
    expect(await grade(3, '<answer>no</answer>')).toBe(1);
  });

  it('rejects a row whose gold is unusable at reset, with DATASET_INVALID', async () => {
    const env = make('qa:HotpotQA', { dataset: [{ question: 'q', answer: null }] });
    await expect(env.reset()).rejects.toMatchObject({ code: 'DATASET_INVALID' });
  });

  it('qa:NaturalQuestions reads the `problem` column (GEM keys)', async () => {
    const env = make('qa:NaturalQuestions', { dataset: [{ problem: 'Capital of Peru?', answer: ['Lima'] }] });
    expect((await env.reset()).observation).toContain('Question: Capital of Peru?');
    expect(await env.step('<answer>lima</answer>')).toMatchObject({ reward: 1 });
  });

  it.each(listEnvs('qa:'))('%s passes checkEnv on the sample set', async (id) => {
    const question_key = 'question';
    await expect(checkEnv(make(id, { dataset: sampleDatasetPath('qa'), question_key, seed: 1 }) as never)).resolves.toBeUndefined();
  });
});
