/** GEM's logic:RuleTaker-d{0,1,2,3,5}: QA envs whose answer (True/False) is read from `\boxed{}`. */
import { taskDatasets } from '../../data/taskCatalog.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerQa } from '../qa/qaEnv.ts';

export function registerLogicEnvs(registry: EnvRegistry): void {
  for (const entry of taskDatasets('qa')) if (entry.id.startsWith('logic:')) registerQa(registry, entry);
}
