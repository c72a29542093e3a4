/**
 * An env defined in a client's Python process (`gem_ts.register`). The server holds this proxy; every
 * reset/step becomes an `env_call` message to the client that registered the id, which runs its
 * Python env and answers with `env_return`. Wrappers, vector envs and autoreset then work on it like
 * on any built-in env.
 */
import { z } from 'zod';
import type { Env, ResetOptions, ResetResult, StepResult } from '../core/env.ts';
import { GemError } from '../core/errors.ts';
import type { EnvSpec } from '../core/spec.ts';

/** Sends one call to the owning client and resolves with its `result`. */
export type EnvCallFn = (envId: string, instance: number, call: 'create' | 'reset' | 'step' | 'close' | 'get_attr' | 'set_attr', args: Record<string, unknown>) => Promise<unknown>;

const info = z.record(z.string(), z.unknown());
const ResetResultSchema = z.object({ observation: z.string(), info: info.default({}) });
const StepResultSchema = z.object({
  observation: z.string(),
  reward: z.number(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  info: info.default({}),
});

function checked<T>(schema: z.ZodType<T>, value: unknown, what: string, envId: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => `${i.path.join('.') || 'result'}: ${i.message}`).join('; ');
  throw new GemError('INVALID_BODY', `The Python env '${envId}' returned a bad ${what} result: ${problems}`);
}

export class RemoteEnv implements Env {
  private readonly ready: Promise<unknown>;
  private closed = false;

  constructor(
    private readonly call: EnvCallFn,
    readonly spec: EnvSpec,
    private readonly instance: number,
    options: Record<string, unknown>,
    seed: number | undefined,
  ) {
    this.ready = call(spec.id, instance, 'create', { options, seed: seed ?? null });
    // Creation failures surface on the first reset; never as an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>;
  }

  async reset(opts: ResetOptions = {}): Promise<ResetResult> {
    await this.ready;
    const r = await this.call(this.spec.id, this.instance, 'reset', { seed: opts.seed ?? null, options: opts.options ?? null });
    return checked(ResetResultSchema, r, 'reset', this.spec.id);
  }

  async step(action: string): Promise<StepResult> {
    await this.ready;
    const r = await this.call(this.spec.id, this.instance, 'step', { action });
    return checked(StepResultSchema, r, 'step', this.spec.id);
  }

  /** Attributes of the Python env object itself (core/envAttributes.ts), read and written there. */
  async forwardGetAttr(name: string): Promise<unknown> {
    await this.ready;
    return this.call(this.spec.id, this.instance, 'get_attr', { name });
  }

  async forwardSetAttr(name: string, value: unknown): Promise<void> {
    await this.ready;
    await this.call(this.spec.id, this.instance, 'set_attr', { name, value });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.ready;
      await this.call(this.spec.id, this.instance, 'close', {});
    } catch {
      // The owner may already be gone; a close never fails.
    }
  }

  /** Synchronous by contract, while the Python env can only be reached asynchronously. */
  sampleRandomAction(): string {
    throw new GemError('NOT_SUPPORTED', `sampleRandomAction() of the Python-defined env '${this.spec.id}' runs in Python; call it there.`);
  }

  spawn(): Env {
    throw new GemError('NOT_SUPPORTED', `spawn() is not available for the Python-defined env '${this.spec.id}'.`);
  }

  toString(): string {
    return `<${this.spec.id}>`;
  }
}
