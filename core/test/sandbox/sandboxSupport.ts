/** Whether bubblewrap works on this machine; tests that need it are skipped (and say so) when not. */
import { detectIsolation, findBwrap } from '../../src/sandbox/isolation.ts';
import { resolvePythonRuntime } from '../../src/sandbox/pythonRuntime.ts';
import { ZYGOTE_PATH } from '../../src/sandbox/sandbox.ts';

let cached: boolean | undefined;

export function bwrapWorks(): boolean {
  if (cached === undefined) {
    const report = detectIsolation(resolvePythonRuntime(), ZYGOTE_PATH, findBwrap());
    cached = report.kind === 'bwrap';
    if (!cached) console.warn(`skipping sandbox tests that need bubblewrap: ${report.reason}`);
  }
  return cached;
}
