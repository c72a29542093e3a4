import { defineConfig } from 'vitest/config';

/**
 * Two projects. `unit`: the in-process tests, run without per-file isolation (one module graph per
 * worker instead of one per file: ~1 s of imports saved per file); they share no mutable module
 * state, since catalogues are objects (builtinCatalog) and tests that register ids clean up.
 * `integration`: the files that start processes, sockets, sandboxes, a browser or a build, each in
 * its own fork, so native modules (zeromq) and worker pools stay per file.
 *
 * `npm run test:quick` sets GEM_TS_TEST_TIER=quick: the unit project only; npm test runs both.
 */
const INTEGRATION = [
  'test/server/{auth,serveCli,zmqRouterTransport}.test.ts', // real ZeroMQ sockets and server processes
  'test/server/datasetPaths.test.ts', // code envs: worker threads and the sandbox
  'test/cli/{package,serve,serveDataDir,doctor,eval,play,list}.test.ts', // npm pack, spawned CLIs, servers, sandbox probes
  'test/ui/{browser,bundle,uiCli}.test.ts', // Chromium, a vite build, spawned UI servers
  'test/{sandbox,tools/python}/**/*.test.ts', // the bubblewrap sandbox and python_tool
  'test/tools/{mcp,registerToolWrappers}.test.ts', // MCP server processes, sandboxed tools
  'test/envs/code/**/*.test.ts', // graded in the sandbox
  'test/envs/reasoning/**/*.test.ts', // the ReasoningGym Python worker
  'test/eval/evalCli.test.ts', // spawned gem-ts eval
  'test/core/checkEnvAll.test.ts', // every env id, code and rg:* included
  'test/vector/workerPool.test.ts', // worker threads
  'test/wrappers/historyObservation.test.ts', // python_tool (sandbox) in one case
];
const quick = process.env.GEM_TS_TEST_TIER === 'quick';
const shared = { testTimeout: 30_000, hookTimeout: 30_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...INTEGRATION], isolate: false } },
      ...(quick ? [] : [{ test: { ...shared, name: 'integration', include: INTEGRATION, exclude: ['**/node_modules/**'] } }]),
    ],
  },
});
