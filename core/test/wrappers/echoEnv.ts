/** A test env with no turn limit whose observation echoes the action: a history of it grows by what the client sends. */
import type { Env, ResetResult, StepResult } from '../../src/core/env.ts';

export class EchoEnv implements Env {
  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>;
  }
  resetSync(): ResetResult {
    return { observation: 'start', info: {} };
  }
  stepSync(action: string): StepResult {
    return { observation: `heard ${action}`, reward: 0, terminated: false, truncated: false, info: {} };
  }
  reset(): Promise<ResetResult> {
    return Promise.resolve(this.resetSync());
  }
  step(action: string): Promise<StepResult> {
    return Promise.resolve(this.stepSync(action));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  sampleRandomAction(): string {
    return 'x';
  }
  spawn(): Env {
    return new EchoEnv();
  }
}
