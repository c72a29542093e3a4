// Runs test suites as child processes, `jobs` at a time, for `npm test`. Most suites spend much of
// their time waiting (servers starting, sandboxes, subprocess imports), so two at a time fill the
// two cores that one at a time leaves half idle. Each suite's output goes to its own log, printed
// whole when it ends, so suites never interleave; a line says when each starts and ends.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './lib.mjs';

/**
 * @typedef {{ name: string, heading: string, steps: Array<[string, string[], object?]>, alone?: boolean, light?: boolean }} Suite
 * `steps` run in order (an install, then the tests); the suite fails at the first step that does.
 * `alone` suites (a Ray cluster, whose start-up has timeouts) run one by one after all the others,
 * beside the `light` ones (a linter: one process, no servers), which wait for that phase so that the
 * core an alone suite leaves free is not idle.
 */

/** Runs `suites` in the order given, at most `jobs` at once; resolves to [{ name, status, secs }]. */
export async function runSuites(suites, { jobs, logDir }) {
  const log = (suite) => join(logDir, `${suite.name.replace(/\W+/g, '-')}.log`);
  const run = (s) => runOne(s, log(s));
  const alone = suites.filter((s) => s.alone);
  // Light suites wait for the alone phase only when there is one and a core to spare beside it.
  const beside = alone.length > 0 && jobs > 1 ? suites.filter((s) => s.light && !s.alone) : [];
  const results = await pool(suites.filter((s) => !s.alone && !beside.includes(s)), jobs, run);
  const [last, light] = await Promise.all([pool(alone, 1, run), pool(beside, jobs - 1, run)]);
  return [...results, ...light, ...last];
}

async function pool(items, jobs, run) {
  const results = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      results[i] = await run(items[i]);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  return results;
}

async function runOne(suite, logPath) {
  const t0 = Date.now();
  console.log(`▶ ${suite.name}`);
  const log = createWriteStream(logPath);
  let status = 0;
  for (const [cmd, args, opts = {}] of suite.steps) {
    status = await new Promise((resolve) => {
      const child = spawn(cmd, args, { cwd: root, ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.pipe(log, { end: false });
      child.stderr.pipe(log, { end: false });
      child.on('error', (e) => {
        log.write(`\n${cmd}: ${e.message}\n`);
        resolve(1);
      });
      child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
    if (status !== 0) break;
  }
  await new Promise((resolve) => log.end(resolve));
  const secs = Math.round((Date.now() - t0) / 1000);
  console.log(`\n━━ ${suite.heading} ━━`);
  process.stdout.write(readFileSync(logPath, 'utf8'));
  console.log(`${status === 0 ? '✓' : '✗'} ${suite.name} (${secs} s)`);
  return { name: suite.name, status, secs };
}
