/**
 * A registry's datasets are bound into the options of the envs it makes, in the thread that makes
 * them; a bound table survives the trip to a worker thread (structured clone) as bytes it decodes
 * once per thread.
 */
import { describe, expect, it } from 'vitest';
import { boundRows, isBoundTable } from '../../src/data/boundTable.ts';
import { DatasetRegistry } from '../../src/data/datasetRegistry.ts';
import { defaultRegistry, makeVec } from '../../src/index.ts';

describe('dataset binding', () => {
  const rows = [{ problem: 'bound 1?', answer: '1' }];

  it("binds a registry's dataset by name or by the id's own names; spec() binds nothing", async () => {
    const datasets = new DatasetRegistry();
    datasets.register('mine', rows);
    const r = defaultRegistry.overlay({ datasets });
    const { spec } = r.resolveOptions('math:GSM8K', { dataset: 'mine' });
    expect(isBoundTable(spec.options.dataset)).toBe(true);
    expect(boundRows(spec.options.dataset as never)).toBe(datasets.getDataset('mine')!.rows); // no copy in-thread
    expect((await r.make('math:GSM8K', { dataset: 'mine' }).reset({ options: { idx: 0 } })).observation).toBe('bound 1?');
    datasets.register('axon-rl/GSM-8k:train', [{ problem: 'by hub name', answer: '2' }]);
    expect((await r.make('math:GSM8K').reset({ options: { idx: 0 } })).observation).toBe('by hub name');
    expect(r.spec('math:GSM8K').options.dataset).toBeUndefined();
    // Another registry sees none of it.
    expect(() => defaultRegistry.overlay({ datasets: new DatasetRegistry() }).make('math:GSM8K', { dataset: 'mine' })).toThrow(
      expect.objectContaining({ code: 'DATASET_MISSING' }),
    );
  });

  it('gives cpuBound envs the rows as shared bytes, decoded once per thread after a structured clone', () => {
    const datasets = new DatasetRegistry();
    datasets.register('code-set', [{ problem: 'p', tests: '{"inputs": ["1"], "outputs": ["1"]}' }]);
    const r = defaultRegistry.overlay({ datasets });
    const a = r.resolveOptions('code:CodeContest', { dataset: 'code-set' }).spec.options.dataset;
    const b = r.resolveOptions('code:CodeContest', { dataset: 'code-set', max_tests: 3 }).spec.options.dataset;
    expect((a as { bytes: SharedArrayBuffer }).bytes).toBe((b as { bytes: SharedArrayBuffer }).bytes); // serialized once
    const inWorker = structuredClone(a) as never;
    expect(isBoundTable(inWorker)).toBe(true);
    const decoded = boundRows(inWorker);
    expect(decoded).toEqual(datasets.getDataset('code-set')!.rows);
    expect(decoded).not.toBe(datasets.getDataset('code-set')!.rows);
    expect(boundRows(structuredClone(b) as never)).toBe(decoded); // once per thread
    // A worker's make validates again: the bound table passes through untouched.
    expect(r.resolveOptions('code:CodeContest', { dataset: inWorker }).spec.options.dataset).toBe(inWorker);
  });
  it('fails at make, not at the first reset, for a worker-thread env whose data is nowhere (code:CodeContest as math:GSM8K)', () => {
    const r = defaultRegistry.overlay({ datasets: new DatasetRegistry() });
    const saved = process.env.GEM_TS_DATA_DIR;
    delete process.env.GEM_TS_DATA_DIR;
    try {
      const missing = expect.objectContaining({ code: 'DATASET_MISSING', data: expect.objectContaining({ from_hub: true }) });
      for (const id of ['code:CodeContest', 'eval:CodeContest', 'math:GSM8K', 'qa:NaturalQuestions']) {
        expect(() => makeVec(id, { numEnvs: 1, workers: 1, mode: 'pool', registry: r }), id).toThrow(missing);
      }
    } finally {
      if (saved !== undefined) process.env.GEM_TS_DATA_DIR = saved;
    }
  });
});
