/**
 * Every op on a served env waits its turn in the one in-order queue steps use: an attribute read or
 * write sent after a step of a slow env runs after that step, never beside it. The server serves
 * the catalog it is given, and nothing else.
 */
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { Env, ResetResult, StepResult } from '../../src/core/env.ts';
import type { AttributeTable } from '../../src/core/envAttributes.ts';
import { EnvRegistry } from '../../src/registry/registry.ts';
import type { GemServer } from '../../src/server/server.ts';
import { connect, startServer, type WireClient } from './wireClient.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tool-calling env in miniature: each step waits for the test to open its gate, then counts. */
class GatedEnv implements Env {
  steps = 0;
  label = 'A';
  constructor(private readonly gate: () => Promise<void>) {}
  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>;
  }
  envAttributes(): AttributeTable {
    return {
      steps: { schema: z.number(), get: () => this.steps },
      label: { schema: z.string(), get: () => this.label, set: (v) => (this.label = v as string) },
    };
  }
  reset(): Promise<ResetResult> {
    this.steps = 0;
    return Promise.resolve({ observation: 'start', info: {} });
  }
  async step(action: string): Promise<StepResult> {
    await this.gate();
    this.steps++;
    return { observation: `${action} as ${this.label}`, reward: 0, terminated: false, truncated: false, info: {} };
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  sampleRandomAction(): string {
    return 'x';
  }
  spawn(): Env {
    return new GatedEnv(this.gate);
  }
  toString(): string {
    return '<test:Gated-v0>';
  }
}

let server: GemServer | undefined;
const clients: WireClient[] = [];
/** Opens the gate for good, so a failed test never leaves a step (and the server's close) waiting. */
let openForGood: (() => void) | undefined;
afterEach(async () => {
  openForGood?.();
  for (const c of clients.splice(0)) c.close();
  await server?.close();
  server = undefined;
});

/** A server whose catalog holds test:Gated-v0 alone; `open()` lets every waiting step through. */
async function gatedServer(): Promise<{ c: WireClient; handle: number; open: () => void }> {
  let opened!: () => void;
  let gate = new Promise<void>((r) => (opened = r));
  let forGood = false;
  openForGood = () => {
    forGood = true;
    opened();
  };
  const catalog = new EnvRegistry({ label: 'test catalog' });
  const wait = () => (forGood ? Promise.resolve() : gate);
  catalog.register({ id: 'test:Gated-v0', description: 'Steps wait for a gate.', schema: z.object({}).strict(), create: () => new GatedEnv(wait) });
  server = await startServer({ catalog });
  const c = connect(server);
  clients.push(c);
  const handle = (await c.ok({ op: 'make', env_ids: 'test:Gated-v0', num_envs: 2 })).header.handle as number;
  await c.ok({ op: 'reset', handle });
  const open = () => {
    opened();
    gate = new Promise<void>((r) => (opened = r));
  };
  return { c, handle, open };
}

describe('attribute ops wait for the steps before them', () => {
  it('a get_attr sent after a step of a slow env sees that step', async () => {
    const { c, handle, open } = await gatedServer();
    const step = c.request({ op: 'step', handle, rows: { env_index: [0], action: ['go'] } });
    const read = c.request({ op: 'get_attr', handle, name: 'steps', indices: [0] });
    let readDone = false;
    void read.then(() => (readDone = true));
    await sleep(30);
    expect(readDone).toBe(false); // held behind the step, not answered beside it
    // The other env is not held: its attributes are answered at once.
    expect((await c.ok({ op: 'get_attr', handle, name: 'steps', indices: [1] })).header.value).toEqual([0]);
    open();
    expect((await step).header.ok).toBe(true);
    expect((await read).header).toMatchObject({ ok: true, env_index: [0], value: [1] });
  });

  it('a set_attr sent between two steps applies after the first and before the second', async () => {
    const { c, handle, open } = await gatedServer();
    const first = c.request({ op: 'step', handle, rows: { env_index: [0], action: ['one'] } });
    const write = c.request({ op: 'set_attr', handle, name: 'label', value: 'B', indices: [0] });
    const second = c.request({ op: 'step', handle, rows: { env_index: [0], action: ['two'] } });
    await sleep(20);
    open();
    expect((await first).header.rows.observation).toEqual(['one as A']);
    expect((await write).header).toMatchObject({ ok: true, env_index: [0] });
    await sleep(20);
    open();
    expect((await second).header.rows.observation).toEqual(['two as B']);
  });

  it('attribute ops check their indices before waiting', async () => {
    const { c, handle } = await gatedServer();
    const bad = await c.request({ op: 'get_attr', handle, name: 'steps', indices: [0, 2] });
    expect(bad.header.error).toMatchObject({ code: 'INDEX_OUT_OF_RANGE', message: expect.stringMatching(/env index 2 is out of range/) });
    const count = await c.request({ op: 'set_attr', handle, name: 'label', values: ['x'], indices: [0, 1] });
    expect(count.header.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/got 1 values for 2 envs/) });
  });
});

describe('the catalog is the one the server was given', () => {
  it('lists and makes only what the injected catalog holds', async () => {
    await gatedServer();
    const c = connect(server!);
    clients.push(c);
    expect((await c.ok({ op: 'list_envs' })).header.envs).toEqual(['test:Gated-v0']);
    expect((await c.request({ op: 'make', env_ids: 'game:GuessTheNumber-v0' })).header.error.code).toBe('UNKNOWN_ENV');
  });
});
