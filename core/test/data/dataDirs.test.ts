/**
 * DataDirs: a path counts only when its real path lies in an allowed directory and can be read;
 * outside, missing, unreadable and linked-out paths all give the same answer.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirs } from '../../src/data/dataDirs.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'gem-datadirs-')));
const allowed = join(root, 'allowed');
const outside = join(root, 'outside');
mkdirSync(join(allowed, 'hub', 'sub'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(allowed, 'ok.jsonl'), '{"problem":"p","answer":"1"}\n');
writeFileSync(join(allowed, 'hub', 'train.jsonl'), '{"problem":"p","answer":"1"}\n');
writeFileSync(join(outside, 'secret.jsonl'), '{"problem":"secret","answer":"1"}\n');
symlinkSync(join(outside, 'secret.jsonl'), join(allowed, 'link-out.jsonl'));
// A folder inside whose only split file links out.
mkdirSync(join(allowed, 'leaky'));
symlinkSync(join(outside, 'secret.jsonl'), join(allowed, 'leaky', 'train.jsonl'));
// A save_to_disk folder whose state.json names a file outside.
mkdirSync(join(allowed, 'saved'));
writeFileSync(join(allowed, 'saved', 'state.json'), JSON.stringify({ _data_files: [{ filename: '../../outside/secret.jsonl' }] }));

describe('DataDirs', () => {
  const dirs = DataDirs.of([allowed]);

  it('allows a file or a folder inside, as its real path', () => {
    expect(dirs.check(join(allowed, 'ok.jsonl'), undefined)).toBe(join(allowed, 'ok.jsonl'));
    expect(dirs.check(join(allowed, 'hub'), 'train')).toBe(join(allowed, 'hub'));
    expect(dirs.find('hub', 'train')).toBe(join(allowed, 'hub'));
    // `..` that stays inside is fine once resolved.
    expect(dirs.check(join(allowed, 'hub', 'sub', '..', '..', 'ok.jsonl'), undefined)).toBe(join(allowed, 'ok.jsonl'));
  });

  it('refuses a file outside, a `..` escape, a link out, and a folder that lists files outside', () => {
    expect(dirs.check(join(outside, 'secret.jsonl'), undefined)).toBeUndefined();
    expect(dirs.check(join(allowed, '..', 'outside', 'secret.jsonl'), undefined)).toBeUndefined();
    expect(dirs.find('../outside/secret.jsonl', undefined)).toBeUndefined();
    expect(dirs.check(join(allowed, 'link-out.jsonl'), undefined)).toBeUndefined();
    expect(dirs.check(join(allowed, 'leaky'), 'train')).toBeUndefined();
    expect(dirs.check(join(allowed, 'saved'), undefined)).toBeUndefined();
  });

  it('gives the same answer for a missing file, an unreadable one and /etc/shadow', () => {
    const locked = join(allowed, 'locked.jsonl');
    writeFileSync(locked, '{}\n');
    chmodSync(locked, 0o000);
    const answers = [join(allowed, 'missing.jsonl'), '/etc/shadow', '/nonexistent/x.jsonl'].map((p) => dirs.check(p, undefined));
    expect(answers).toEqual([undefined, undefined, undefined]);
    // root reads a mode-000 file; everyone else is refused, as for a missing one.
    if (process.getuid?.() !== 0) expect(dirs.check(locked, undefined)).toBeUndefined();
  });

  it('none() allows nothing; of() refuses a directory that is not there', () => {
    expect(DataDirs.none().check(join(allowed, 'ok.jsonl'), undefined)).toBeUndefined();
    expect(() => DataDirs.of([join(root, 'nope')])).toThrow(/data directory/);
  });
});
