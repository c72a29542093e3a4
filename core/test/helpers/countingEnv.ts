/**
 * Small envs for vector and wrapper tests. CountingEnv's observations say where it is — `e2/t1/a`
 * is episode 2, step 1, after action `a` — so autoreset tables read directly off the rows.
 * Importing this module registers them (safe to import twice, and from a worker thread).
 */
import { z } from 'zod';
import { BaseEnv } from '../../src/core/baseEnv.ts';
import type { Env, ResetOptions, ResetResult, SpawnOptions, StepResult } from '../../src/core/env.ts';
import { Wrapper } from '../../src/core/wrapper.ts';
import { isRegistered, register } from '../../src/envs/defaultRegistry.ts';

interface CountingState {
  episode: number;
  t: number;
}

/** Ends after `length` steps (terminated, or truncated with `truncate`); reward = step number. */
export class CountingEnv extends BaseEnv<CountingState> {
  private episodes = 0;
  /** Reset options are echoed into the info; `idx` is the one the vector tests pass. */
  protected readonly resetOptionKeys: readonly string[] = ['idx'];

  constructor(
    readonly length = 3,
    readonly truncate = false,
    seed?: number,
  ) {
    super(seed);
  }

  protected newEpisode(options?: Record<string, unknown>): ResetResult {
    this.episodes += 1;
    this.state = { episode: this.episodes, t: 0 };
    return { observation: `e${this.episodes}/t0`, info: { episode: this.episodes, ...(options ?? {}), seedDraw: this.rng.int(0, 999) } };
  }

  protected applyAction(action: string): StepResult {
    const s = this.state;
    s.t += 1;
    const end = s.t >= this.length;
    return {
      observation: `e${s.episode}/t${s.t}/${action}`,
      reward: s.t,
      terminated: end && !this.truncate,
      truncated: end && this.truncate,
      info: { t: s.t },
    };
  }

  sampleRandomAction(): string {
    return `a${this.actionRng.int(0, 9)}`;
  }

  protected clone(): CountingEnv {
    const c = new CountingEnv(this.length, this.truncate);
    c.episodes = this.episodes;
    return c;
  }
}

/** Hides the sync twins and adds a delay, like an env that does I/O (a tool call). */
export class AsyncOnly extends Wrapper {
  readonly wrapperName = 'async_only';

  constructor(
    env: Env,
    readonly delayMs: number | ((action: string) => number) = 0,
  ) {
    super(env);
  }

  private wait(action: string): Promise<void> {
    const ms = typeof this.delayMs === 'number' ? this.delayMs : this.delayMs(action);
    return new Promise((r) => setTimeout(r, ms));
  }

  async reset(opts?: ResetOptions): Promise<ResetResult> {
    await this.wait('');
    return this.env.reset(opts);
  }

  async step(action: string): Promise<StepResult> {
    await this.wait(action);
    return this.env.step(action);
  }

  spawn(opts?: SpawnOptions): Env {
    return new AsyncOnly(this.env.spawn(opts), this.delayMs);
  }
}

/** Burns CPU for `busy_ms` per step: a stand-in for grading or test execution. */
export class BusyLoopEnv extends CountingEnv {
  constructor(
    readonly busyMs: number,
    length: number,
    seed?: number,
  ) {
    super(length, false, seed);
  }

  protected applyAction(action: string): StepResult {
    const until = performance.now() + this.busyMs;
    while (performance.now() < until) {
      // spin
    }
    return super.applyAction(action);
  }

  protected clone(): BusyLoopEnv {
    return new BusyLoopEnv(this.busyMs, this.length);
  }
}

const CountingOptions = z.object({ length: z.number().int().positive().default(3), truncate: z.boolean().default(false) }).strict();
const BusyOptions = z.object({ busy_ms: z.number().nonnegative().default(50), length: z.number().int().positive().default(3) }).strict();

if (!isRegistered('test:Counting-v0')) {
  register({
    id: 'test:Counting-v0',
    description: 'Counts steps; ends after `length`.',
    schema: CountingOptions,
    create: (o, _spec, seed) => new CountingEnv(o.length, o.truncate, seed),
    moduleUrl: import.meta.url,
  });
  register({
    id: 'test:CountingCpu-v0',
    description: 'CountingEnv marked cpuBound, so vector envs run it in a worker thread.',
    schema: CountingOptions,
    create: (o, _spec, seed) => new CountingEnv(o.length, o.truncate, seed),
    cpuBound: true,
    moduleUrl: import.meta.url,
  });
  register({
    id: 'test:BusyLoop-v0',
    description: 'Spins the CPU for busy_ms per step (cpuBound).',
    schema: BusyOptions,
    create: (o, _spec, seed) => new BusyLoopEnv(o.busy_ms, o.length, seed),
    cpuBound: true,
    moduleUrl: import.meta.url,
  });
}

/** Kills its worker thread on the first step: how a native crash in a grader looks to the pool. */
class CrashEnv extends CountingEnv {
  protected applyAction(): StepResult {
    process.exit(3);
  }
}

if (!isRegistered('test:Crash-v0')) {
  register({
    id: 'test:Crash-v0',
    description: 'Exits its worker thread on step (cpuBound).',
    schema: z.object({}).strict(),
    create: (_o, _spec, seed) => new CrashEnv(3, false, seed),
    cpuBound: true,
    moduleUrl: import.meta.url,
  });
}
