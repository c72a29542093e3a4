// `npm run demo`: installs what is missing, then the end-to-end example — a small language model learns
// to play a gem-ts game with REINFORCE+ReBN (examples/benchmark_algorithms.py --demo). The gem_ts client
// starts the gem-ts server by itself. Extra arguments go to the Python script (try `npm run demo -- --help`).
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureNodeModules, ensureRootVenv, ensureSandbox, mustRun, root } from './lib.mjs';

ensureNodeModules();
ensureSandbox(); // the demo's game needs no sandbox, but the next thing a user tries (python_tool, code:*) does
const py = ensureRootVenv({ extras: ['bench'] }); // torch, transformers, matplotlib: installed on first use
if (!py) {
  console.error('The demo needs the gem_ts Python client (core/python), which is missing from this checkout.');
  process.exit(1);
}

const out = join(root, 'runs', 'demo');
console.log('\n━━ gem-ts demo: a tiny language model learns GuessTheNumber with REINFORCE+ReBN ━━');
console.log('   (Node serves the envs over ZeroMQ + Arrow; PyTorch trains on the CPU; about three minutes)\n');
mustRun(py, [join(root, 'examples', 'benchmark_algorithms.py'), '--demo', '--out', out, ...process.argv.slice(2)]);

const resultsFile = join(out, 'results.json');
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const pct = (x) => `${(100 * x).toFixed(0)}%`;
  console.log('\n━━ result ━━');
  for (const [name, task] of Object.entries(results.tasks)) {
    for (const [seed, run] of Object.entries(task.seeds)) {
      for (const [algo, trained] of Object.entries(run.algorithms)) {
        console.log(
          `${task.env_id} (${name}, seed ${seed}), ${algo}: success rate ${pct(run.warm_start.success)} before RL → ` +
            `${pct(trained.final.success)} after ${trained.curve.at(-1).iter} iterations ` +
            `(random valid actions: ${pct(run.random_action.success)})`,
        );
      }
    }
  }
  console.log(`learning curve: ${relative(process.cwd(), join(out, 'curves.png'))}`);
}
console.log('\nNext:');
console.log('  .venv/bin/python examples/benchmark_algorithms.py   # PPO, GRPO, REINFORCE and ReBN on 3 tasks × 5 seeds (docs/benchmark.md)');
console.log('  npx tsx examples/quickstart.ts                       # the TypeScript quickstart: every game with a random agent');
