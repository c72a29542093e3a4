/** Options every dataset env takes (GEM's MathEnv/QaEnv/CodeEnv kwargs) and how they pick the data. */
import { z } from 'zod';
import { GemError } from '../core/errors.ts';
import { resolveDataset, type DatasetSource, type HubLocation } from './datasetSource.ts';
import type { TaskDatasetEntry } from './taskCatalog.ts';

export const datasetOptionFields = {
  /** A registered dataset name, a local file or `datasets` folder, or the rows themselves. */
  dataset: z.union([z.string().min(1), z.array(z.record(z.string(), z.unknown())).min(1)]).optional(),
  /** GEM's hub name; here it names the registered table or `$GEM_TS_DATA_DIR` folder to look for. */
  dataset_name: z.string().min(1).optional(),
  split: z.string().min(1).optional(),
  /** A hub revision (branch, tag or commit) of the data: the table a client pushes for it is registered as `<hub>@<revision>`. */
  revision: z.string().min(1).optional(),
  /** Evaluation mode: sequential resets follow the file order (no shuffle). */
  eval: z.boolean().default(false),
};

export interface DatasetOptions {
  dataset?: string | Record<string, unknown>[];
  dataset_name?: string;
  split?: string;
  revision?: string;
}

export function hubLocation(entry: TaskDatasetEntry, options: DatasetOptions): HubLocation {
  const hub = options.dataset_name ?? entry.location.hub;
  const split = options.dataset_name ? options.split : (options.split ?? entry.location.split);
  return options.revision ? { hub, split, revision: options.revision } : { hub, split };
}

/** The data source of one env built from a catalog entry; throws DATASET_MISSING with directions. */
export function datasetSourceFor(entry: TaskDatasetEntry, options: DatasetOptions): DatasetSource {
  return resolveDataset({ envId: entry.id, location: hubLocation(entry, options), dataset: options.dataset, split: options.split });
}

/**
 * How a dataset env turns a problem into its observation. Named templates, or any text with a
 * `{question}` placeholder. `none` is the problem as the dataset gives it (GEM's envs do that and
 * leave the instruction to the trainer's template); `boxed` asks for the final answer in `\boxed{}`,
 * which is what the math grader reads (the idea of GEM's math template, in our words).
 */
export const PROMPT_TEMPLATES: Readonly<Record<string, string>> = {
  none: '{question}',
  boxed: '{question}\n\nWork through the problem step by step, then write only your final answer inside \\boxed{}.',
};

export const promptTemplateField = z
  .string()
  .min(1)
  .refine((t) => t in PROMPT_TEMPLATES || t.includes('{question}'), {
    message: `prompt_template must be one of ${Object.keys(PROMPT_TEMPLATES).join(', ')} or a text containing {question}`,
  });

/** The template text of a template option: a name or the text itself. */
export function promptTemplateText(template: string): string {
  const text = PROMPT_TEMPLATES[template] ?? template;
  if (!text.includes('{question}')) {
    throw new GemError('INVALID_OPTIONS', `prompt_template must be one of ${Object.keys(PROMPT_TEMPLATES).join(', ')} or a text containing {question}, got ${JSON.stringify(template)}.`, { template });
  }
  return text;
}

/** The observation for `question` under `template` (every `{question}` is replaced). */
export function applyPromptTemplate(template: string, question: string): string {
  return promptTemplateText(template).split('{question}').join(question);
}
