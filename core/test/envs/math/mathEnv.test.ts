import { describe, expect, it } from 'vitest';
import { TERMINAL_STATE, checkEnv, listEnvs, make } from '../../../src/index.ts';
import { sampleDatasetPath } from '../../../src/data/taskCatalog.ts';

const rows = [
  { problem: 'Simplify 18/24.', answer: '\\frac{3}{4}' },
  { problem: 'Name a root of x^2 = 4.', answer: ['2', '-2'] },
];

async function answer(action: string, idx = 0, options: Record<string, unknown> = {}) {
  const env = make('math:Math12K', { dataset: rows, ...options });
  await env.reset({ options: { idx } });
  return env.step(action);
}

describe('math:* envs', () => {
  it('registers GEM\'s seven ids', () => {
    expect(listEnvs('math:')).toEqual(['math:ASDiv2K', 'math:GSM8K', 'math:Math12K', 'math:Math8K-3to5', 'math:Orz57K', 'math:DeepScaleR40K', 'math:Geometry3K']);
  });

  it('shows the raw problem text, with no instructions added (GEM leaves that to templates)', async () => {
    const env = make('math:Math12K', { dataset: rows });
    expect(await env.reset({ options: { idx: 0 } })).toEqual({ observation: 'Simplify 18/24.', info: {} });
  });

  it('scores an equivalent boxed answer 1', async () => {
    for (const good of ['so \\boxed{\\frac{3}{4}}', '\\boxed{0.75}', '\\boxed{\\dfrac34}', '\\boxed{75\\%}', '$\\boxed{3/4}$.']) {
      expect(await answer(good)).toEqual({ observation: TERMINAL_STATE, reward: 1, terminated: true, truncated: true, info: { correct: true } });
    }
  });

  it('accepts any of several gold answers', async () => {
    expect(await answer('\\boxed{-2}', 1)).toMatchObject({ reward: 1 });
    expect(await answer('\\boxed{x = 2}', 1)).toMatchObject({ reward: 1 });
  });

  it('scores wrong answers 0', async () => {
    for (const bad of ['\\boxed{\\frac{4}{3}}', '\\boxed{0.7}', '\\boxed{18/24 + 1}', '\\boxed{\\frac{3}{4}x}']) {
      expect(await answer(bad)).toMatchObject({ reward: 0, info: { correct: false } });
    }
  });

  it('grades the final box; a list of boxes in a row counts together unless multi_box is last', async () => {
    expect(await answer('\\boxed{3/4} no: \\boxed{1}')).toMatchObject({ reward: 0 });
    expect(await answer('\\boxed{1} no: \\boxed{3/4}')).toMatchObject({ reward: 1 });
    const env = make('math:Math12K', { dataset: [{ problem: 'Roots of x^2 = 4?', answer: '\\{2, -2\\}' }] });
    await env.reset({ options: { idx: 0 } });
    expect(await env.step('$\\boxed{2}$, $\\boxed{-2}$')).toMatchObject({ reward: 1 });
    const last = make('math:Math12K', { dataset: [{ problem: 'Roots of x^2 = 4?', answer: '\\{2, -2\\}' }], multi_box: 'last' });
    await last.reset({ options: { idx: 0 } });
    expect(await last.step('$\\boxed{2}$, $\\boxed{-2}$')).toMatchObject({ reward: 0 });
  });

  it('takes the grader options precision and strict', async () => {
    const rows2 = [{ problem: 'One third to two places?', answer: '\\frac{1}{3}' }, { problem: 'f(t) = ?', answer: 'x^2 + 1' }];
    const go = async (action: string, idx: number, options: Record<string, unknown>) => {
      const env = make('math:Math12K', { dataset: rows2, ...options });
      await env.reset({ options: { idx } });
      return (await env.step(action)).reward;
    };
    expect(await go('\\boxed{0.33}', 0, {})).toBe(0);
    expect(await go('\\boxed{0.33}', 0, { precision: 2 })).toBe(1);
    expect(await go('\\boxed{t^2+1}', 1, {})).toBe(0);
    expect(await go('\\boxed{t^2+1}', 1, { strict: false })).toBe(1);
    expect(() => make('math:Math12K', { dataset: rows2, precision: -1 })).toThrow(/precision/);
    expect(() => make('math:Math12K', { dataset: rows2, multi_box: 'first' })).toThrow(/multi_box/);
  });

  it('prompt_template boxed adds the answer instruction to training sets too', async () => {
    const env = make('math:Math12K', { dataset: rows, prompt_template: 'boxed' });
    const { observation } = await env.reset({ options: { idx: 0 } });
    expect(observation).toMatch(/^Simplify 18\/24\.\n\n.*\\boxed\{\}/s);
  });

  it('scores malformed answers 0: no box, unclosed box, unparsable box', async () => {
    for (const bad of ['3/4', '\\boxed{3/4', '\\boxed{}', '\\boxed{\\frac{3}{}}', '\\boxed{)(}']) {
      expect(await answer(bad)).toMatchObject({ reward: 0, terminated: true, truncated: true });
    }
  });

  it('with use_format_error_reward, an answer with no box costs −0.1 and has an empty info', async () => {
    expect(await answer('3/4', 0, { use_format_error_reward: true })).toMatchObject({ reward: -0.1, info: {} });
    expect(await answer('\\boxed{2}', 0, { use_format_error_reward: true })).toMatchObject({ reward: 0, info: { correct: false } });
  });

  it('survives hostile answers quickly (huge powers, deep nesting, very long text)', async () => {
    const hostile = [
      '\\boxed{10^{10^{10^{10}}}}',
      '\\boxed{9999999!}',
      `\\boxed{${'('.repeat(5000)}1${')'.repeat(5000)}}`,
      `\\boxed{${'1+'.repeat(20000)}1}`,
      '\\boxed{\\frac{1}{0}}',
    ];
    for (const h of hostile) expect(await answer(h)).toMatchObject({ reward: 0 });
  });

  it('math:Geometry3K puts the problem\'s images in info.images and keeps a text observation', async () => {
    const env = make('math:Geometry3K', { dataset: sampleDatasetPath('geometry') });
    const { observation, info } = await env.reset({ options: { idx: 0 } });
    expect(typeof observation).toBe('string');
    expect(info.images).toEqual([{ bytes: expect.any(String), path: null }]);
    expect(await env.step('\\boxed{10}')).toMatchObject({ reward: 1 });
  });

  it.each(listEnvs('math:'))('%s passes checkEnv on the sample set', async (id) => {
    const dataset = sampleDatasetPath(id === 'math:Geometry3K' ? 'geometry' : 'math');
    await expect(checkEnv(make(id, { dataset, seed: 4 }) as never)).resolves.toBeUndefined();
  });
});
