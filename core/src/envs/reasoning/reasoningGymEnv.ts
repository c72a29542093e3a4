/**
 * GEM's ReasoningGymEnv: a reasoning-gym problem per episode, generated and scored by the package
 * itself in the shared Python worker. The answer is the content of the last `\boxed{}` (none is
 * scored as a missing answer); the reward is the package's score in [0, 1].
 *
 * Which problem (each a pure function of reasoning-gym's own seeds, reproducible in Python with
 * `reasoning_gym.create_dataset(name, seed=…, size=…, **config)[idx]`):
 * - `reset({seed: s})`: problem 0 of the dataset seeded s;
 * - `reset({options: {idx}})`: problem idx of the dataset seeded with the env's seed (GEM: 42);
 * - `reset()`: the next problem of that dataset; after `size` problems, the dataset seeded
 *   seed + size, and so on (GEM regenerates the same way).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ResetOptions } from '../../core/env.ts';
import { ResetNeededError } from '../../core/errors.ts';
import { SingleTurnTask, readIdxOption, type Graded, type Picked } from '../../core/singleTurnTask.ts';
import type { EnvSpec } from '../../core/spec.ts';
import { lastBoxed } from '../../data/graders/lastBoxed.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { getReasoningGymWorker, type ProblemKey, type ReasoningGymWorker } from './reasoningGymWorker.ts';

export const DEFAULT_RG_SEED = 42;

export const ReasoningGymOptions = z
  .object({
    /** Problems per generated dataset before the next one (GEM: 500). */
    size: z.number().int().positive().max(1_000_000_000).default(500),
    /** Keyword arguments of the task's reasoning-gym config (difficulty ranges and so on). */
    config: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type ReasoningGymOptions = z.infer<typeof ReasoningGymOptions>;

/** The task names of the pinned reasoning-gym, listed at build time (core/data/reasoning/list_tasks.py). */
export function reasoningGymTasks(): { version: string; tasks: string[] } {
  const file = new URL('../../../data/reasoning/tasks.json', import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The current problem is its question; where it comes from (the generator's key) is its index. */
export class ReasoningGymEnv extends SingleTurnTask<string, ProblemKey> {
  constructor(
    readonly name: string,
    readonly options: ReasoningGymOptions,
    readonly seed: number = DEFAULT_RG_SEED,
    private readonly worker: ReasoningGymWorker = getReasoningGymWorker(),
  ) {
    super();
  }

  private key(seed: number, idx: number): ProblemKey {
    return { name: this.name, config: this.options.config, seed, size: this.options.size, idx };
  }

  private keyFor(opts: ResetOptions): ProblemKey {
    const size = this.options.size;
    const idx = readIdxOption(opts, size, 'rg:* envs');
    if (idx !== undefined) return this.key(this.seed, idx);
    if (opts.seed !== undefined) return this.key(opts.seed, 0);
    const { epoch, position } = this.nextInPass(size);
    return this.key(this.seed + epoch * size, position);
  }

  protected async pick(opts: ResetOptions): Promise<Picked<string, ProblemKey>> {
    const index = this.keyFor(opts);
    const { question } = await this.worker.item(index);
    return { index, problem: question };
  }

  protected prompt(question: string): string {
    return question;
  }

  protected async grade(action: string, _question: string, key: ProblemKey): Promise<Graded> {
    const answer = lastBoxed(action) ?? null;
    const { score, scorerError } = await this.worker.score(key, answer);
    // Scores are in [0, 1]; anything else from a task's scorer is clamped, never passed on as NaN.
    const reward = Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
    return { reward, info: scorerError ? { scorer_error: scorerError } : {} };
  }

  /** The reference answer of the current problem (for tests and oracle runs); null for tasks without one. */
  async referenceAnswer(): Promise<string | null> {
    if (!this.current) throw new ResetNeededError('read the answer');
    return (await this.worker.item(this.current.index)).answer;
  }

  sampleRandomAction(): string {
    return '\\boxed{42}';
  }

  protected fork(seed: number | undefined): ReasoningGymEnv {
    return new ReasoningGymEnv(this.name, this.options, seed ?? this.seed, this.worker);
  }

  getState(): ProblemKey | undefined {
    return this.open ? { ...this.open.index } : undefined;
  }

  toString(): string {
    return `<${this.spec?.id ?? `rg:${this.name}`}>`;
  }
}

/** Registers rg:<task> for every task of the pinned reasoning-gym. */
export function registerReasoningGym(registry: EnvRegistry): string[] {
  const { tasks } = reasoningGymTasks();
  for (const name of tasks) {
    const schema =
      name === 'composite'
        ? ReasoningGymOptions.refine((o) => Array.isArray(o.config.datasets) && o.config.datasets.length > 0, {
            message: "rg:composite mixes other tasks: give them as config.datasets, e.g. {datasets: [{name: 'chain_sum', weight: 1, config: {}}]}",
            path: ['config'],
          })
        : ReasoningGymOptions;
    registry.register<ReasoningGymOptions>({
      id: `rg:${name}`,
      description: `reasoning-gym task '${name}', generated and scored by the reasoning-gym package.`,
      schema: schema as z.ZodType<ReasoningGymOptions>,
      create: (o: ReasoningGymOptions, _spec: EnvSpec, seed?: number) => new ReasoningGymEnv(name, o, seed ?? DEFAULT_RG_SEED),
    });
  }
  return tasks.map((t) => `rg:${t}`);
}
