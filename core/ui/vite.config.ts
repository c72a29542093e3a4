// Builds the web app of `gem-ts ui` into core/ui/dist (checked in, so the CLI serves it with no build
// step and the package ships it). `node core/ui/build.mjs`; a test fails when dist is stale.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small bundle: no code splitting, no source maps in the package.
    sourcemap: false,
    assetsInlineLimit: 0,
  },
});
