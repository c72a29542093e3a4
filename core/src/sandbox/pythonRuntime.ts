/**
 * Which Python runs sandboxed code, and which host folders it needs: its install prefix and, for a
 * virtual environment, the venv too. Those folders are the only host paths (besides the system's
 * /usr) that the sandbox makes visible, read-only.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { GemError } from '../core/errors.ts';

export interface PythonRuntime {
  /** The interpreter path to run (a venv's python keeps its site-packages). */
  executable: string;
  version: string;
  /** Host folders the interpreter needs, outermost first, without duplicates or nesting. */
  roots: string[];
}

const cache = new Map<string, PythonRuntime>();

/** The interpreter from GEM_TS_SANDBOX_PYTHON, else `python3` on PATH. */
export function defaultPythonCommand(): string {
  return process.env.GEM_TS_SANDBOX_PYTHON || 'python3';
}

export function resolvePythonRuntime(command = defaultPythonCommand()): PythonRuntime {
  const hit = cache.get(command);
  if (hit) return hit;
  const probe = 'import json, sys; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, sys.version.split()[0]]))';
  const r = spawnSync(command, ['-I', '-c', probe], { encoding: 'utf8', timeout: 15_000 });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || `exit code ${r.status}`).trim();
    throw new GemError('SANDBOX_UNAVAILABLE', `Cannot run the sandbox's Python '${command}': ${why}`, { command });
  }
  const [executable, prefix, basePrefix, version] = JSON.parse(r.stdout.trim()) as string[];
  const real = realpathSync(executable);
  const candidates = [basePrefix, prefix, dirname(dirname(real))].map((p) => realpathSync(p));
  const roots = minimalRoots(candidates);
  const runtime = { executable, version, roots };
  cache.set(command, runtime);
  return runtime;
}

/** Drops duplicates and folders inside another listed folder. */
export function minimalRoots(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const p of sorted) {
    if (!out.some((o) => p === o || p.startsWith(o.endsWith('/') ? o : `${o}/`))) out.push(p);
  }
  return out;
}
