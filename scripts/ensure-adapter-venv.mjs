// `node scripts/ensure-adapter-venv.mjs adapters/<name>`: creates or updates that adapter's own venv
// (its pins clash with the others'). npm test runs it as the first step of the adapter's suite, so
// installs overlap with other suites' tests.
import { join, resolve } from 'node:path';
import { adapterInstallSteps, ensureVenv, root } from './lib.mjs';

const dir = resolve(root, process.argv[2]);
const { steps, dependsOn } = adapterInstallSteps(dir);
ensureVenv(join(dir, '.venv'), steps, dependsOn, { uv: true });
