/** GEM's code:* ids (reference/gem.md §2.5); eval:CodeContest registers in ../eval. */
import { TASK_DATASETS } from '../../data/taskCatalog.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerCode } from './codeEnv.ts';

export function registerCodeEnvs(registry: EnvRegistry): void {
  for (const entry of TASK_DATASETS) if (entry.id.startsWith('code:')) registerCode(registry, entry);
}
