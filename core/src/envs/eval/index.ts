/**
 * GEM's eval:* ids (reference/gem.md §2.0): math, code and QA evaluation sets. They are the same envs
 * as their training kin, in evaluation mode (file order, no shuffle), registered last as in GEM.
 */
import { TASK_DATASETS } from '../../data/taskCatalog.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import { registerCode } from '../code/codeEnv.ts';
import { registerMath } from '../math/mathEnv.ts';
import { registerQa } from '../qa/qaEnv.ts';

export function registerEvalSets(registry: EnvRegistry): void {
  for (const entry of TASK_DATASETS) {
    if (!entry.id.startsWith('eval:')) continue;
    if (entry.kind === 'math') registerMath(registry, entry);
    else if (entry.kind === 'code') registerCode(registry, entry);
    else registerQa(registry, entry);
  }
}
