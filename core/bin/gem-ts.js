#!/usr/bin/env node
// The `gem-ts` command. An installed package (npm tarball, the Python wheel) has dist/ and no src/,
// and runs the compiled JavaScript: no TypeScript loader at run time. A checkout runs its source
// through tsx, so an edit takes effect without a rebuild and a stale dist/ is never run by mistake;
// GEM_TS_RUN=dist (or src) picks one explicitly, e.g. to time the compiled start in a checkout.
import { existsSync } from 'node:fs';

const here = (rel) => new URL(rel, import.meta.url);
const hasDist = existsSync(here('../dist/cli/main.js'));
const hasSrc = existsSync(here('../src/cli/main.ts'));
const want = process.env.GEM_TS_RUN || (hasSrc ? 'src' : 'dist');

if (want === 'dist' && hasDist) {
  await import('../dist/cli/main.js');
} else if (want === 'src' && hasSrc) {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error(
      'gem-ts: this checkout runs its TypeScript source through tsx, which is not installed.\n' +
        'Fix: run `npm ci` at the repository root (or build once with `npm run build` and set GEM_TS_RUN=dist).',
    );
    process.exit(1);
  }
  register();
  await import('../src/cli/main.ts');
} else {
  console.error(
    `gem-ts: no ${want === 'dist' ? 'compiled dist/' : 'src/'} next to ${new URL('.', import.meta.url).pathname}.\n` +
      (hasSrc ? 'Fix: run `npm run build` in core/ (or unset GEM_TS_RUN).' : 'Fix: reinstall the package (npm i @gem-ts/core).'),
  );
  process.exit(1);
}
