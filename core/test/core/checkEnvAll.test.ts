/** Every registered id must pass checkEnv. Ids that need data or packages absent here are listed with the reason. */
import { describe, expect, it } from 'vitest';
import { checkEnv, listEnvs, make } from '../../src/index.ts';
import { registerSampleDatasets } from '../data/sampleDatasets.ts';
import { COMPOSITE_OPTIONS, reasoningGymInstalled } from '../envs/reasoning/reasoningGymSupport.ts';

// Dataset-backed ids (math, code, qa, logic, eval) run on our shipped sample sets instead of their
// Hugging Face datasets.
registerSampleDatasets();

// Options an id cannot do without: rg:composite mixes other reasoning-gym tasks.
const NEEDED_OPTIONS: Record<string, Record<string, unknown>> = { 'rg:composite': COMPOSITE_OPTIONS };

describe.each(listEnvs())('%s', (id) => {
  // rg:* ids need the reasoning-gym package in the worker's Python (the root .venv has it).
  // openenv:* needs an OpenEnv server (its url option); test/envs/openenv runs checkEnv on it against one.
  const skip = (id.startsWith('rg:') && !reasoningGymInstalled()) || id.startsWith('openenv:');
  it.skipIf(skip)('passes checkEnv', async () => {
    await expect(checkEnv(make(id, { seed: 0, ...NEEDED_OPTIONS[id] }) as never)).resolves.toBeUndefined();
  });
});
