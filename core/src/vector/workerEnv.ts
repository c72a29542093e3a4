/**
 * A proxy for an env that lives in a WorkerPool thread: reset/step/spawn/close become messages, so
 * the env's CPU-heavy work never blocks the event loop. It has no sync twins, which makes vector
 * envs step it concurrently with the others.
 *
 * sampleRandomAction is synchronous in the Env contract, so the worker draws the env's next random
 * action after every reset and step and sends it along; the random-action stream therefore matches
 * an in-process env's as long as the caller samples at most once per step.
 */
import type { Env, ResetOptions, ResetResult, SpawnOptions, StepResult } from '../core/env.ts';
import { EnvClosedError, GemError } from '../core/errors.ts';
import type { EnvSpec } from '../core/spec.ts';
import type { WorkerRequest } from './workerProtocol.ts';

/** What a WorkerEnv needs from its pool: one request, one reply. */
export interface WorkerChannel {
  readonly label: string;
  call(req: WorkerRequest): Promise<{ result?: ResetResult | StepResult; sample?: string; value?: unknown }>;
  nextKey(): number;
  /** Called once when the env is closed, so the pool can balance its workers. */
  released(): void;
}

export class WorkerEnv implements Env {
  private sample?: string;
  private closed = false;

  constructor(
    private readonly channel: WorkerChannel,
    private readonly key: number,
    readonly spec: EnvSpec,
  ) {}

  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>;
  }

  async reset(opts?: ResetOptions): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError('reset');
    const reply = await this.channel.call({ op: 'reset', id: 0, key: this.key, opts });
    this.sample = reply.sample;
    return reply.result as ResetResult;
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError('step');
    const reply = await this.channel.call({ op: 'step', id: 0, key: this.key, action });
    this.sample = reply.sample;
    return reply.result as StepResult;
  }

  /** Attributes live with the env in its worker (core/envAttributes.ts). */
  async forwardGetAttr(name: string): Promise<unknown> {
    if (this.closed) throw new EnvClosedError('read an attribute of');
    return (await this.channel.call({ op: 'attr', id: 0, key: this.key, name, write: false })).value;
  }

  async forwardSetAttr(name: string, value: unknown): Promise<void> {
    if (this.closed) throw new EnvClosedError('set an attribute of');
    await this.channel.call({ op: 'attr', id: 0, key: this.key, name, write: true, value });
  }

  sampleRandomAction(): string {
    if (this.sample === undefined) {
      throw new GemError('NOT_SUPPORTED', `${this.toString()}: a worker env can sample a random action only after reset or step`);
    }
    return this.sample;
  }

  spawn(opts: SpawnOptions = {}): Env {
    if (this.closed) throw new EnvClosedError('spawn');
    const newKey = this.channel.nextKey();
    // Messages are handled in order, so the child exists before anything is sent to it.
    void this.channel.call({ op: 'spawn', id: 0, key: this.key, newKey, opts }).catch(() => undefined);
    const child = new WorkerEnv(this.channel, newKey, this.spec);
    child.sample = opts.sameState ? this.sample : undefined;
    return child;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.channel.released();
    await this.channel.call({ op: 'close', id: 0, key: this.key }).catch(() => undefined);
  }

  toString(): string {
    return `<${this.spec.id} in ${this.channel.label}>`;
  }
}
