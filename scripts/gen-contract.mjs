// `npm run gen:contract`: writes the Python side of the wire contract (core/python/gem_ts/_contract.py)
// from the zod headers and error codes. `--check` only reports whether the checked-in file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';
import { root } from './lib.mjs';

register();
const { renderPythonContract, PYTHON_CONTRACT_PATH } = await import('../core/src/server/protocol/contractPython.ts');
const target = join(root, PYTHON_CONTRACT_PATH);
const text = renderPythonContract();
let current = '';
try {
  current = readFileSync(target, 'utf8');
} catch {
  // first run
}
if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${PYTHON_CONTRACT_PATH} is stale: run npm run gen:contract`);
    process.exit(1);
  }
  console.log(`${PYTHON_CONTRACT_PATH} is up to date`);
} else if (current === text) {
  console.log(`${PYTHON_CONTRACT_PATH} unchanged`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${PYTHON_CONTRACT_PATH}`);
}
