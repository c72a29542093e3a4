import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pySplit, pyStrip } from '../../../../src/data/graders/qa/pythonText.ts';

describe("Python's whitespace", () => {
  it('is exactly the set of characters for which str.isspace() holds', () => {
    const r = spawnSync('python3', ['-c', 'import sys; sys.stdout.write(",".join(str(c) for c in range(0x110000) if chr(c).isspace()))'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const python = r.stdout.split(',').map(Number);
    const ours: number[] = [];
    for (let c = 0; c < 0x110000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCodePoint(c);
      if (pyStrip(`x${ch}`) === 'x') ours.push(c);
    }
    expect(ours).toEqual(python);
  });

  // JS's trim() treats U+FEFF as space and U+0085 / U+001C–U+001F as not; Python the other way round.
  it('strips U+0085 and U+001C–U+001F but not U+FEFF, unlike String.prototype.trim', () => {
    expect(pyStrip('\u0085 7 \u001c\u001f')).toBe('7');
    expect(pyStrip('\uFEFF7')).toBe('\uFEFF7');
    expect('\u0085 7'.trim()).not.toBe('7');
    expect(pySplit('a\u001eb\u3000c  d')).toEqual(['a', 'b', 'c', 'd']);
    expect(pySplit(' \t ')).toEqual([]);
  });
});
