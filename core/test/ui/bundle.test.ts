/**
 * The built web app is checked in (core/src/ui/app) so `gem-ts ui` needs no build step and the package
 * ships it. This fails when it is stale: a fresh build of core/ui must give the same files. It also
 * checks the app fetches nothing from outside the machine (no CDN, no web fonts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';

const uiDir = join(__dirname, '../../ui');
const appDir = join(__dirname, '../../src/ui/app');
const out = mkdtempSync(join(tmpdir(), 'gem-ui-dist-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function files(dir: string): Record<string, string> {
  const all: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else all[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return all;
}

describe('core/src/ui/app', () => {
  it('matches a fresh build of core/ui (rebuild with: node core/ui/build.mjs)', async () => {
    await build({ configFile: join(uiDir, 'vite.config.ts'), build: { outDir: out, emptyOutDir: true } });
    const fresh = files(out);
    const checkedIn = files(appDir);
    expect(Object.keys(checkedIn).sort()).toEqual(Object.keys(fresh).sort());
    for (const [name, text] of Object.entries(fresh)) expect(checkedIn[name] === text, `${name} differs`).toBe(true);
  });

  it('loads nothing from outside the machine', () => {
    for (const [name, text] of Object.entries(files(appDir))) {
      const urls = [...text.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'`)]*/gi)].map((m) => m[0]);
      // The SVG namespace is a name, not a fetch.
      expect(urls.filter((u) => !u.startsWith('http://www.w3.org/')), name).toEqual([]);
      expect(text, name).not.toMatch(/@import|fonts\.googleapis|@font-face/);
    }
  });
});
