/** GEM's open-domain QA ids (reference/gem.md §2.6); the eval:* QA sets register in ../eval. */
import { taskDatasets } from '../../data/taskCatalog.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerQa } from './qaEnv.ts';

export function registerQaEnvs(registry: EnvRegistry): void {
  for (const entry of taskDatasets('qa')) if (entry.id.startsWith('qa:')) registerQa(registry, entry);
}
