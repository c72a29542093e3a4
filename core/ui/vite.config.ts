// Builds the web app of `gem-ts ui` into core/src/ui/app, next to the server that serves it: checked
// in, so the CLI serves it with no build step, and the package build (which copies every non-TypeScript
// file of src/ into dist/) ships it. `node core/ui/build.mjs`; a test fails when it is stale.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: '../src/ui/app',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle: no code splitting, no source maps in the package.
    sourcemap: false,
    assetsInlineLimit: 0,
  },
});
