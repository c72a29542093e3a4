// `npm run setup`: Node dependencies and the root Python venv with what the envs and the gem_ts
// client need (scripts/requirements/*.txt), and bubblewrap for the Python sandbox where it can. The demo and the benchmarks add their own stacks on first
// use (scripts/requirements/extras/). `npm run setup -- --adapter trl` (repeatable, or `all`) also
// builds that trainer adapter's own venv, adapters/<name>/.venv, as `npm test` does.
import { existsSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { adapterDirs, adapterInstallSteps, ensureNodeModules, ensureRootVenv, ensureSandbox, ensureVenv, root } from './lib.mjs';

let values;
try {
  ({ values } = parseArgs({ options: { adapter: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } } }));
} catch (e) {
  console.error(`setup: ${e.message}\nusage: npm run setup [-- --adapter NAME|all ...]`);
  process.exit(2);
}
const available = adapterDirs().map((d) => basename(d)).filter((n) => n !== 'kit');
if (values.help) {
  console.log(`usage: npm run setup [-- --adapter NAME|all ...]\nadapters: ${available.join(', ')}`);
  process.exit(0);
}
const wanted = (values.adapter ?? []).flatMap((a) => (a === 'all' ? available : a.split(',')));
const unknown = wanted.filter((a) => !available.includes(a));
if (unknown.length) {
  console.error(`setup: no adapter named ${unknown.join(', ')}; adapters: ${available.join(', ')}`);
  process.exit(2);
}

ensureNodeModules();
ensureSandbox();
ensureRootVenv();
for (const name of wanted) {
  const dir = join(root, 'adapters', name);
  console.log(`\n━━ adapter ${name}: ${relative(process.cwd(), join(dir, '.venv'))} ━━`);
  const { steps, dependsOn } = adapterInstallSteps(dir);
  const py = ensureVenv(join(dir, '.venv'), steps, dependsOn, { uv: true });
  const example = join(root, 'examples', `train_${name}.py`);
  if (existsSync(example)) console.log(`  try: ${relative(process.cwd(), py)} ${relative(process.cwd(), example)} --dry-run`);
}
console.log('✓ set up');
