// Builds the web app into core/src/ui/app: `node core/ui/build.mjs` (vite is a dev dependency of core).
// `--out DIR` builds elsewhere (the freshness test compares such a build with the checked-in one).
import { build } from 'vite';
import { resolve } from 'node:path';

const at = process.argv.indexOf('--out');
const outDir = at > 0 ? resolve(process.argv[at + 1]) : undefined;
await build({ configFile: new URL('./vite.config.ts', import.meta.url).pathname, ...(outDir ? { build: { outDir, emptyOutDir: true } } : {}) });
