import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TERMINAL_STATE, checkEnv, listEnvs, make, type Env } from '../../../src/index.ts';
import { ReasoningGymEnv, reasoningGymTasks } from '../../../src/envs/reasoning/reasoningGymEnv.ts';
import { ReasoningGymWorker, closeReasoningGymWorker, workerPython } from '../../../src/envs/reasoning/reasoningGymWorker.ts';
import { COMPOSITE_OPTIONS, reasoningGymInstalled } from './reasoningGymSupport.ts';

afterAll(() => closeReasoningGymWorker());

const rg = (id: string, options: Record<string, unknown> = {}) => make(id, options);
/** The env's own method, under make's lifecycle layer. */
const referenceAnswer = (env: Env) => (env.unwrapped as unknown as ReasoningGymEnv).referenceAnswer();

/** Problems whose questions the tests compare with what reasoning-gym itself generates in Python. */
const DIRECT: [string, number, number, number][] = [
  ['letter_counting', 7, 500, 0],
  ['letter_counting', 42, 500, 3],
  ['chain_sum', 100, 2, 0],
  ['chain_sum', 100, 2, 1],
  ['chain_sum', 102, 2, 0],
  ['chain_sum', 5, 500, 0],
];
let direct: Map<string, string> | undefined;

/** The question reasoning-gym generates for (name, seed, size, idx), asked of Python once for all. */
function pythonQuestion(name: string, seed: number, size: number, idx: number): string {
  if (!direct) {
    const code = `import json, sys, reasoning_gym\nout = {}\nfor n, s, z, i in json.loads(sys.argv[1]):\n    out[f"{n}/{s}/{z}/{i}"] = reasoning_gym.create_dataset(n, seed=s, size=z)[i]["question"]\nprint(json.dumps(out))`;
    const r = spawnSync(workerPython(), ['-c', code, JSON.stringify(DIRECT)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    direct = new Map(Object.entries(JSON.parse(r.stdout.trim().split('\n').pop()!)));
  }
  const q = direct.get(`${name}/${seed}/${size}/${idx}`);
  if (q === undefined) throw new Error(`add [${name}, ${seed}, ${size}, ${idx}] to DIRECT`);
  return q;
}

describe('rg:* registration', () => {
  it('registers one id per task of the pinned reasoning-gym (104 in 0.1.23, as in GEM), without starting Python', () => {
    const { version, tasks } = reasoningGymTasks();
    expect(version).toBe('0.1.23');
    expect(tasks).toHaveLength(104);
    expect(listEnvs('rg:')).toEqual(tasks.map((t) => `rg:${t}`));
  });

  it('rejects bad options at make, and rg:composite without the tasks to mix', () => {
    expect(() => make('rg:letter_counting', { size: 0 })).toThrow(/option 'size'/);
    expect(() => make('rg:letter_counting', { difficulty: 3 })).toThrow(/unknown option 'difficulty'/);
    expect(() => make('rg:composite')).toThrow(/config\.datasets/);
  });
});

describe.skipIf(!reasoningGymInstalled())('rg:* envs', () => {
  it('list the tasks of the installed package (tasks.json is current)', async () => {
    const r = spawnSync(workerPython(), ['-c', 'import json, reasoning_gym\nfrom reasoning_gym.factory import DATASETS\nprint(json.dumps(sorted(DATASETS)))'], { encoding: 'utf8' });
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual(reasoningGymTasks().tasks);
  });

  it.each(['letter_counting', 'basic_arithmetic', 'chain_sum', 'word_sorting', 'spell_backward', 'gcd', 'number_sorting', 'caesar_cipher'])(
    'rg:%s scores the reference answer 1, a wrong one below 1, and no box 0',
    async (name) => {
      const env = rg(`rg:${name}`);
      const { observation, info } = await env.reset({ seed: 11 });
      expect(observation.length).toBeGreaterThan(10);
      expect(info).toEqual({});
      const answer = await referenceAnswer(env);
      expect(await env.step(`Reasoning… so the answer is \\boxed{${answer}}`)).toEqual({ observation: TERMINAL_STATE, reward: 1, terminated: true, truncated: true, info: {} });
      await env.reset({ seed: 11 });
      expect((await env.step('\\boxed{certainly not this}')).reward).toBeLessThan(1);
      await env.reset({ seed: 11 });
      expect(await env.step(`the answer is ${answer}`)).toMatchObject({ reward: 0 });
    },
  );

  it('maps seeds to reasoning-gym\'s own: reset({seed}) is problem 0 of the dataset with that seed', async () => {
    const env = rg('rg:letter_counting');
    expect((await env.reset({ seed: 7 })).observation).toBe(pythonQuestion('letter_counting', 7, 500, 0));
    expect((await env.reset({ options: { idx: 3 } })).observation).toBe(pythonQuestion('letter_counting', 42, 500, 3));
  });

  it('walks the dataset seeded with the env seed, then the one seeded seed + size', async () => {
    const env = rg('rg:chain_sum', { seed: 100, size: 2 });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await env.reset()).observation);
    expect(seen).toEqual([pythonQuestion('chain_sum', 100, 2, 0), pythonQuestion('chain_sum', 100, 2, 1), pythonQuestion('chain_sum', 102, 2, 0)]);
  });

  it('rejects a bad idx and unknown reset options', async () => {
    const env = rg('rg:chain_sum', { size: 5 });
    await expect(env.reset({ options: { idx: 5 } })).rejects.toMatchObject({ code: 'INDEX_OUT_OF_RANGE' });
    await expect(env.reset({ options: { level: 1 } })).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(env.step('\\boxed{1}')).rejects.toMatchObject({ code: 'RESET_NEEDED' });
  });

  it('spawn({sameState}) answers the same problem', async () => {
    const env = rg('rg:gcd');
    await env.reset({ seed: 3 });
    const answer = await referenceAnswer(env);
    const child = env.spawn({ sameState: true });
    expect(await child.step(`\\boxed{${answer}}`)).toMatchObject({ reward: 1 });
    expect(await env.step(`\\boxed{${answer}}`)).toMatchObject({ reward: 1 });
  });

  it('scores an answer that crashes the task\'s own scorer 0, saying why', async () => {
    const env = rg('rg:boxnet');
    await env.reset({ seed: 1 });
    const r = await env.step('\\boxed{42}');
    expect(r.reward).toBe(0);
    expect(r.info.scorer_error).toMatch(/Error/);
  });

  it('rg:composite mixes the tasks named in its config', async () => {
    const env = rg('rg:composite', COMPOSITE_OPTIONS);
    await env.reset({ seed: 2 });
    expect(await env.step(`\\boxed{${await referenceAnswer(env)}}`)).toMatchObject({ reward: 1 });
  });

  it('passes a task config to reasoning-gym and reports its complaints', async () => {
    const env = rg('rg:letter_counting', { config: { min_words: 3, max_words: 3 } });
    expect((await env.reset({ seed: 4 })).observation).toMatch(/appear in the text/);
    await expect(rg('rg:letter_counting', { config: { bogus: 1 } }).reset()).rejects.toMatchObject({ code: 'WORKER_FAILED', message: expect.stringContaining('TypeError') });
  });

  it('serves many envs at once from one worker', async () => {
    const envs = Array.from({ length: 40 }, (_, i) => rg(i % 2 ? 'rg:gcd' : 'rg:lcm'));
    const obs = await Promise.all(envs.map((e, i) => e.reset({ seed: i })));
    expect(obs.every((o, i) => o.observation.includes(i % 2 ? 'Greatest Common Divisor' : 'Least Common Multiple'))).toBe(true);
    const answers = await Promise.all(envs.map((e) => referenceAnswer(e)));
    const results = await Promise.all(envs.map((e, i) => e.step(`\\boxed{${answers[i]}}`)));
    expect(results.every((r) => r.reward === 1)).toBe(true);
  });

  it('fails pending calls with WORKER_FAILED when the worker dies, and restarts on the next call', async () => {
    const worker = new ReasoningGymWorker();
    const env = new ReasoningGymEnv('chain_sum', { size: 500, config: {} }, 42, worker);
    await env.reset();
    const pending = env.reset({ seed: 5 });
    (worker as unknown as { shell: { childProcess: { kill(s: string): void } } }).shell.childProcess.kill('SIGKILL');
    await expect(pending).rejects.toMatchObject({ code: 'WORKER_FAILED' });
    expect((await env.reset({ seed: 5 })).observation).toBe(pythonQuestion('chain_sum', 5, 500, 0));
    worker.close();
  });

  it.each(['rg:letter_counting', 'rg:arc_1d', 'rg:sudoku'])('%s passes checkEnv', async (id) => {
    await expect(checkEnv(make(id, { seed: 9 }) as never)).resolves.toBeUndefined();
  });
});

describe('rg:* without reasoning-gym', () => {
  it('fails with DEPENDENCY_MISSING that says how to install it', async () => {
    // A Python that cannot see site-packages, hence not reasoning-gym.
    const dir = mkdtempSync(join(tmpdir(), 'gem-rg-'));
    const python = join(dir, 'python-without-site');
    writeFileSync(python, `#!/bin/sh\nexec ${workerPython()} -S "$@"\n`);
    chmodSync(python, 0o755);
    const worker = new ReasoningGymWorker(python);
    const env = new ReasoningGymEnv('chain_sum', { size: 500, config: {} }, 42, worker);
    await expect(env.reset()).rejects.toMatchObject({
      code: 'DEPENDENCY_MISSING',
      message: expect.stringContaining('pip install reasoning-gym==0.1.23'),
    });
    worker.close();
  });
});
