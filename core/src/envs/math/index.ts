/** GEM's math:* ids (reference/gem.md §2.3–2.4); the eval:* math sets register in ../eval. */
import { TASK_DATASETS } from '../../data/taskCatalog.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerMath } from './mathEnv.ts';

export function registerMathEnvs(registry: EnvRegistry): void {
  for (const entry of TASK_DATASETS) if (entry.id.startsWith('math:')) registerMath(registry, entry);
}
