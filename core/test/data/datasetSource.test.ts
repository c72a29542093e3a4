import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DatasetRegistry } from '../../src/data/datasetRegistry.ts';
import { registeredNames, resolveDataset } from '../../src/data/datasetSource.ts';

const dir = mkdtempSync(join(tmpdir(), 'gem-src-'));
const loc = { hub: 'org/set', split: 'train' };
const fixture = (name: string) => join(import.meta.dirname, 'fixtures', name);

function jsonl(path: string, rows: object[]): string {
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n'));
  return path;
}

/** The folder `Dataset.save_to_disk` writes: state.json naming Arrow stream files. */
function savedDataset(path: string): string {
  mkdirSync(path, { recursive: true });
  copyFileSync(fixture('rows-stream.arrow'), join(path, 'data-00000-of-00001.arrow'));
  writeFileSync(join(path, 'state.json'), JSON.stringify({ _data_files: [{ filename: 'data-00000-of-00001.arrow' }] }));
  writeFileSync(join(path, 'dataset_info.json'), '{}');
  return path;
}

/** Registered tables are looked up only in the registry given (no process-wide map). */
let datasets = new DatasetRegistry();
const registerDataset = (name: string, rows: Record<string, unknown>[]) => datasets.register(name, rows);

describe('resolveDataset', () => {
  afterEach(() => {
    datasets = new DatasetRegistry();
    delete process.env.GEM_TS_DATA_DIR;
  });

  it('sees no registered table unless given a registry to look in', () => {
    registerDataset('my-table', [{ q: 'registered' }]);
    expect(() => resolveDataset({ envId: 't:env', dataset: 'my-table' })).toThrow(/neither a registered dataset name nor an existing file/);
  });

  it('takes rows given inline', async () => {
    const src = resolveDataset({ envId: 't:env', location: loc, dataset: [{ q: 1 }] });
    expect(await src.rows()).toEqual([{ q: 1 }]);
  });

  it('takes a registered table named by the dataset option, before any file', async () => {
    registerDataset('my-table', [{ q: 'registered' }]);
    expect(await resolveDataset({ envId: 't:env', dataset: 'my-table', datasets }).rows()).toEqual([{ q: 'registered' }]);
  });

  it('looks for tables registered under the env id, then <hub>:<split>, then <hub>', async () => {
    registerDataset('org/set', [{ q: 'hub' }]);
    expect(await resolveDataset({ envId: 't:env', location: loc, datasets }).rows()).toEqual([{ q: 'hub' }]);
    registerDataset('org/set:train', [{ q: 'split' }]);
    expect(await resolveDataset({ envId: 't:env', location: loc, datasets }).rows()).toEqual([{ q: 'split' }]);
    registerDataset('t:env', [{ q: 'id' }]);
    expect(await resolveDataset({ envId: 't:env', location: loc, datasets }).rows()).toEqual([{ q: 'id' }]);
  });

  it('never takes a bare hub name for a named evaluation split', () => {
    registerDataset('org/set', [{ q: 'hub' }]);
    expect(() => resolveDataset({ envId: 't:env', location: { hub: 'org/set', split: 'amc' }, datasets })).toThrow(/needs its dataset/);
  });

  it('reads a file given by path', async () => {
    const path = jsonl(join(dir, 'f.jsonl'), [{ q: 'file' }]);
    expect(await resolveDataset({ envId: 't:env', location: loc, dataset: path }).rows()).toEqual([{ q: 'file' }]);
  });

  it('reads a folder written by Dataset.save_to_disk, and a DatasetDict folder by split', async () => {
    const single = savedDataset(join(dir, 'saved'));
    expect(await resolveDataset({ envId: 't:env', dataset: single }).rows()).toHaveLength(3);
    const dict = join(dir, 'dict');
    savedDataset(join(dict, 'train'));
    savedDataset(join(dict, 'test'));
    writeFileSync(join(dict, 'dataset_dict.json'), JSON.stringify({ splits: ['train', 'test'] }));
    expect(await resolveDataset({ envId: 't:env', location: loc, dataset: dict }).rows()).toHaveLength(3);
    expect(() => resolveDataset({ envId: 't:env', dataset: dict })).toThrow(/holds splits train, test/);
  });

  it('reads <split>.<ext> and <split>-NNNNN files from a folder, and $GEM_TS_DATA_DIR/<hub>/', async () => {
    const data = join(dir, 'datadir');
    mkdirSync(join(data, 'org', 'set'), { recursive: true });
    jsonl(join(data, 'org', 'set', 'train-00000-of-00002.jsonl'), [{ q: 1 }]);
    jsonl(join(data, 'org', 'set', 'train-00001-of-00002.jsonl'), [{ q: 2 }]);
    jsonl(join(data, 'org', 'set', 'test.jsonl'), [{ q: 3 }]);
    process.env.GEM_TS_DATA_DIR = data;
    expect(await resolveDataset({ envId: 't:env', location: loc, datasets }).rows()).toEqual([{ q: 1 }, { q: 2 }]);
    expect(await resolveDataset({ envId: 't:env', location: { hub: 'org/set', split: 'test' } }).rows()).toEqual([{ q: 3 }]);
  });

  it('fails with DATASET_MISSING that names the hub dataset, the split and every way to provide it', () => {
    let error: unknown;
    try {
      resolveDataset({ envId: 'math:Math12K', location: { hub: 'axon-rl/MATH-12k', split: 'train' } });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: 'DATASET_MISSING',
      data: { hub: 'axon-rl/MATH-12k', split: 'train', register_as: 'axon-rl/MATH-12k:train', from_hub: true },
    });
    const message = (error as Error).message;
    expect(message).toContain("'axon-rl/MATH-12k', split 'train'");
    expect(message).toContain("make('math:Math12K', {dataset: '/path/to/data.parquet'})");
    expect(message).toContain("registerDataset('axon-rl/MATH-12k:train', rows)");
    expect(message).toContain('$GEM_TS_DATA_DIR');
    // Each suggested call is data too, with the text the message holds, for callers in other languages.
    const hints = (error as { data: { hints: { kind: string; text: string }[] } }).data.hints;
    expect(hints.map((h) => h.kind)).toEqual(['make', 'register_dataset']);
    for (const h of hints) expect(message).toContain(h.text);
  });

  it('fails with DATASET_MISSING for a dataset option that is neither a table name nor a file', () => {
    let error: unknown;
    try {
      resolveDataset({ envId: 't:env', location: loc, dataset: join(dir, 'missing.parquet') });
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toMatch(/neither a registered dataset name nor an existing file/);
    // The caller named the data: loading the hub's instead would not be what was asked for.
    expect(error).toMatchObject({ code: 'DATASET_MISSING', data: { from_hub: false } });
  });

  it('keeps a revision apart: its table is registered as <hub>@<revision>, and unversioned names do not stand for it', async () => {
    const datasets = new DatasetRegistry();
    datasets.register('org/set:train', [{ q: 'main' }]);
    datasets.register('t:env', [{ q: 'by id' }]);
    const pinned = { hub: 'org/set', split: 'train', revision: 'v1' };
    expect(registeredNames('t:env', pinned)).toEqual(['org/set@v1:train', 'org/set@v1']);
    expect(() => resolveDataset({ envId: 't:env', location: pinned, datasets })).toThrow(
      expect.objectContaining({ code: 'DATASET_MISSING', data: expect.objectContaining({ register_as: 'org/set@v1:train', revision: 'v1' }) }),
    );
    datasets.register('org/set@v1:train', [{ q: 'v1' }]);
    expect(await resolveDataset({ envId: 't:env', location: pinned, datasets }).rows()).toEqual([{ q: 'v1' }]);
  });

  it('fails with DATASET_INVALID for a file that is not a table', () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'hello');
    expect(() => resolveDataset({ envId: 't:env', dataset: path })).toThrow(expect.objectContaining({ code: 'DATASET_INVALID' }));
  });
});
