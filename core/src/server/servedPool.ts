/**
 * What the server needs of a handle's envs, and nothing more: every op that touches an env (step,
 * reset, sample, attributes, close) is a call that waits its turn in one in-order queue per env, so
 * requests pipelined on one env run in arrival order whatever their op. The vector layer's EnvPool
 * is the one implementation; tests may serve anything of this shape.
 */
import type { Env } from '../core/env.ts';
import type { EnvSpec } from '../core/spec.ts';
import type { AutoresetMode, MakeVecOptions, VectorResetOptions, VectorResetResult, VectorStepResult } from '../vector/types.ts';
import type { EnvRegistry } from '../registry/registry.ts';
import type { EachRowSink, SliceSink } from '../vector/vectorEnvBase.ts';

export interface ServedPool {
  readonly numEnvs: number;
  readonly envIds: string[];
  readonly autoresetMode: AutoresetMode;
  /** Env i's wrapper stack as text. */
  describe(index: number): string;
  /** Env i's spec, which never changes once made (read outside the queue for that reason). */
  envAt(index: number): { readonly spec?: EnvSpec };
  /** `onSlice` sees each slice's rows as soon as they are written, when the batch runs in slices (SliceSink). */
  stepInOrder(actions: string[], indices: number[], onSlice?: SliceSink): Promise<VectorStepResult>;
  /** A step whose body is still being decoded: it takes its place in the order now; `onSlice` as above. */
  stepInOrderWhenDecoded(batch: Promise<{ actions: string[]; indices: number[] }>, onSlice?: SliceSink): Promise<VectorStepResult>;
  resetInOrder(opts?: VectorResetOptions): Promise<VectorResetResult>;
  /**
   * stepInOrder row by row, into the caller's columns: one row's failure is its own (EachRowSink).
   * Undefined when the call ran at once, inline: its rows are written already.
   */
  stepEachInOrder(actions: string[], indices: number[], into: EachRowSink): Promise<void> | undefined;
  /** resetInOrder row by row, as stepEachInOrder. */
  resetEachInOrder(opts: VectorResetOptions & { indices: number[] }, into: EachRowSink): Promise<void> | undefined;
  sampleInOrder(indices?: number[]): Promise<{ indices: readonly number[]; actions: string[] }>;
  /** Runs `run` on those envs (all when absent) in their turn; they stay held until it settles. */
  withEnvsInOrder<T>(indices: readonly number[] | undefined, run: (envs: Env<any, any>[], indices: readonly number[]) => Promise<T> | T): Promise<T>;
  /** Closes after the calls already queued. */
  closeInOrder(): Promise<void>;
}

/** Builds a handle's envs from the client session's catalog (`registry`). */
export type PoolFactory = (
  ids: string | string[],
  opts: Omit<MakeVecOptions, 'mode' | 'asyncMode'> & { registry: EnvRegistry },
) => ServedPool | Promise<ServedPool>;
