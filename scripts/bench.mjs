// `npm run bench [name]`: runs the benchmarks under core/bench/ (all, or those whose file name contains name).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNodeModules, ensureRootVenv, mustRun, root } from './lib.mjs';

ensureNodeModules();
// The TypeScript benchmarks measure Python peers in the root venv (bm25s, torch): their extras first.
ensureRootVenv({ extras: 'all' });
const filter = process.argv[2] ?? '';
// Arguments after the name go to each benchmark run (`npm run bench mathDifferential -- --seed 7`).
const extra = process.argv.slice(3);
const dir = join(root, 'core/bench');
for (const f of readdirSync(dir).sort()) {
  if (!f.includes(filter)) continue;
  console.log(`\n━━ ${f} ━━`);
  if (f.endsWith('.ts')) mustRun('npx', ['tsx', join(dir, f), ...extra], { cwd: join(root, 'core') });
  else if (f.endsWith('.py')) mustRun(ensureRootVenv({ extras: 'all' }) ?? 'python3', [join(dir, f), ...extra]);
}
