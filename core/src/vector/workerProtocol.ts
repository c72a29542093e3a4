/** Messages between a WorkerPool and its worker threads (structured-clone, one reply per request). */
import type { ResetOptions, ResetResult, SpawnOptions, StepResult } from '../core/env.ts';

export type WorkerRequest =
  | { op: 'make'; id: number; key: number; envId: string; options: Record<string, unknown>; seed?: number; moduleUrl?: string }
  | { op: 'reset'; id: number; key: number; opts?: ResetOptions }
  | { op: 'step'; id: number; key: number; action: string }
  | { op: 'spawn'; id: number; key: number; newKey: number; opts?: SpawnOptions }
  | { op: 'close'; id: number; key: number }
  /** Env attribute access (core/envAttributes.ts): a read, or a write when `write` is set. */
  | { op: 'attr'; id: number; key: number; name: string; write: boolean; value?: unknown };

export type WorkerReply =
  | {
      id: number;
      ok: true;
      result?: ResetResult | StepResult;
      /** The env's next random action, drawn after the reset or step (see WorkerEnv.sampleRandomAction). */
      sample?: string;
      describe?: string;
      /** The value of an attribute read. */
      value?: unknown;
    }
  | { id: number; ok: false; error: { code: string; message: string; data?: unknown } };

export interface WorkerBootData {
  /** URL of the module the boot script imports once TypeScript loading is in place. */
  entry: string;
}
