import { defineConfig } from 'vitest/config';

/**
 * `npm run test:quick` sets GEM_TS_TEST_TIER=quick: the in-process unit tests only. Left out are the
 * files that start processes, sockets, sandboxes, a browser or a build — npm test runs them all.
 */
const FULL_ONLY = [
  'test/server/{auth,serveCli,zmqRouterTransport}.test.ts', // real ZeroMQ sockets and server processes
  'test/server/datasetPaths.test.ts', // code envs: worker threads and the sandbox
  'test/cli/{package,serve,serveDataDir,doctor,eval,play,list}.test.ts', // npm pack, spawned CLIs, servers, sandbox probes
  'test/ui/{browser,bundle,uiCli}.test.ts', // Chromium, a vite build, spawned UI servers
  'test/tools/python/**', // the bubblewrap sandbox
  'test/tools/{mcp,registerToolWrappers}.test.ts', // MCP server processes, sandboxed tools
  'test/envs/code/**', // graded in the sandbox
  'test/envs/reasoning/**', // the ReasoningGym Python worker
  'test/eval/evalCli.test.ts', // spawned gem-ts eval
  'test/core/checkEnvAll.test.ts', // every env id, code and rg:* included
  'test/vector/workerPool.test.ts', // worker threads
  'test/wrappers/historyObservation.test.ts', // python_tool (sandbox) in one case
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: process.env.GEM_TS_TEST_TIER === 'quick' ? ['**/node_modules/**', ...FULL_ONLY] : ['**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: forks keep native modules (zeromq) and worker pools isolated per file.
    pool: 'forks',
  },
});
