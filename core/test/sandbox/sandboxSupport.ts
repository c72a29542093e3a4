/** What the sandbox tests ask of this machine: whether bubblewrap works (tests that need it are skipped, and say so, when not) and which CPUs this process may use. */
import { readFileSync } from 'node:fs';
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

/** The CPUs this process may run on (its Cpus_allowed_list, "0-3,6" expanded), as Python sorts them. */
export function cpusAllowed(): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1];
  return list.split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}
