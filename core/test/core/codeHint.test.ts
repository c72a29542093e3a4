/**
 * Code hints: a message carries the TypeScript form of each suggested call, its data the hint itself,
 * and `inLanguage` swaps the text for another caller's form (the CLI's flags here; Python renders its
 * own, core/python/tests/test_caller_language.py).
 */
import { describe, expect, it } from 'vitest';
import { Hints, hintsOf, inLanguage, renderHint } from '../../src/core/codeHint.ts';

describe('code hints', () => {
  it('renders each kind in TypeScript', () => {
    expect(renderHint({ kind: 'make', id: 'math:GSM8K', options: { dataset: '/p.parquet', eval: true } })).toBe("make('math:GSM8K', {dataset: '/p.parquet', eval: true})");
    expect(renderHint({ kind: 'reset', options: { idx: { code: 'i' } } })).toBe('reset({options: {idx: i}})');
    expect(renderHint({ kind: 'reset_envs', indices: [{ code: 'i' }] })).toBe('reset({indices: [i]})');
    expect(renderHint({ kind: 'register_dataset', name: 'org/set:train', hub: 'org/set', split: 'train' })).toBe("registerDataset('org/set:train', rows)");
    expect(renderHint({ kind: 'value', value: null })).toBe('null');
    expect(renderHint({ kind: 'make', id: 'x:y', options: { q: "it's" } })).toBe("make('x:y', {q: 'it\\'s'})");
  });

  it('collects the hints of a message with the text each became, and swaps them for the CLI', () => {
    const hints = new Hints();
    const message = `try ${hints.add({ kind: 'make', id: 'math:GSM8K', options: { dataset: '/p.parquet' } })} instead`;
    expect(message).toBe("try make('math:GSM8K', {dataset: '/p.parquet'}) instead");
    const data = JSON.parse(JSON.stringify({ id: 'math:GSM8K', hints: hints.list })); // as it crosses the wire
    expect(hintsOf(data)).toEqual([{ kind: 'make', id: 'math:GSM8K', options: { dataset: '/p.parquet' }, text: "make('math:GSM8K', {dataset: '/p.parquet'})" }]);
    expect(inLanguage(message, data, 'cli')).toBe('try --option dataset=/p.parquet instead');
    expect(inLanguage(message, { hints: 'not a list' }, 'cli')).toBe(message);
    expect(inLanguage(message, undefined, 'cli')).toBe(message);
  });
});
