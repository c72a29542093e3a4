/**
 * GEM's QaEnv: one question per episode, answered inside `<answer>…</answer>` (or `\boxed{}` for
 * RuleTaker), scored 1/0 against any gold answer: normalised exact match for text golds, by value for
 * number and boolean golds (goldAnswers.ts; the rules are in docs/code-qa-graders.md). No format
 * penalty; a reply with no answer to read scores 0 (GEM raises there).
 */
import { z } from 'zod';
import type { EnvSpec } from '../../core/spec.ts';
import { datasetBinding } from '../../data/datasetBinding.ts';
import type { DatasetRow } from '../../data/datasetRegistry.ts';
import { DatasetEnv, requireText, type Graded } from '../../data/datasetEnv.ts';
import type { DatasetSource } from '../../data/datasetSource.ts';
import { lastAnswerTag } from '../../data/graders/qa/exactMatch.ts';
import { matchesAnyGold, readGolds, type Gold } from '../../data/graders/qa/goldAnswers.ts';
import { lastBoxed } from '../../data/graders/lastBoxed.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import type { AttributeTable } from '../../core/envAttributes.ts';
import type { TaskDatasetEntry } from '../../data/taskCatalog.ts';
import { datasetOptionFields, datasetSourceFor } from '../../data/datasetOptions.ts';

export const QaOptions = z
  .object({
    ...datasetOptionFields,
    question_key: z.string().min(1).default('question'),
    answer_key: z.string().min(1).default('answer'),
    /** Read the answer from the last `\boxed{}` instead of the last `<answer>` tag. */
    extract_boxed: z.boolean().default(false),
    /** Accepted for GEM compatibility; rows are prepared once per load here anyway. */
    load_from_cache_file: z.boolean().default(true),
  })
  .strict();
export type QaOptions = z.infer<typeof QaOptions>;

interface QaProblem {
  prompt: string;
  answers: Gold[];
}

/**
 * Our wording of GEM's template: think inside <think>, then the final answer in the form the env
 * grades. GEM's template asks for <answer> tags even where it grades `\boxed{}` (RuleTaker), so a
 * model that follows it scores 0; we ask for the box there.
 */
export function qaPrompt(question: string, boxed = false): string {
  const how = boxed
    ? 'then give only the final answer inside \\boxed{}, for example \\boxed{True}.'
    : 'then give only the final answer inside <answer> and </answer>, for example <answer>Paris</answer>.';
  return `Answer the question below. Think it through step by step inside <think> and </think>, ${how}\nQuestion: ${question}`;
}

export class QaEnv extends DatasetEnv<QaProblem> {
  constructor(readonly options: QaOptions, private readonly entry: TaskDatasetEntry, seed: number, source?: DatasetSource) {
    super({ source: source ?? datasetSourceFor(entry, options), seed, shuffle: !options.eval });
  }

  protected clone(seed: number): QaEnv {
    return new QaEnv(this.options, this.entry, seed, this.config.source);
  }

  protected prepare(row: DatasetRow, index: number): QaProblem {
    return {
      prompt: qaPrompt(requireText(row, this.options.question_key, index), this.options.extract_boxed),
      answers: readGolds(row, this.options.answer_key, index),
    };
  }

  protected prompt(problem: QaProblem): string {
    return problem.prompt;
  }

  protected grade(action: string, problem: QaProblem): Graded {
    const answer = this.options.extract_boxed ? lastBoxed(action) : lastAnswerTag(action);
    const correct = answer !== undefined && matchesAnyGold(answer, problem.answers);
    return { reward: correct ? 1 : 0, info: { correct } };
  }

  sampleRandomAction(): string {
    return this.options.extract_boxed ? '\\boxed{Hello World!}' : '<answer>Hello World!</answer>';
  }

  /** GEM's `env.answer`: the current golds (one value or a list); a write regrades the current question. */
  override envAttributes(): AttributeTable {
    const plain = (g: Gold): string | number | boolean => (g.kind === 'text' ? g.text : g.value);
    return {
      ...super.envAttributes(),
      answer: {
        schema: z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number(), z.boolean()])).min(1)]),
        get: () => {
          const golds = this.current?.problem.answers;
          return golds === undefined ? null : golds.length === 1 ? plain(golds[0]) : golds.map(plain);
        },
        set: (v) => this.changeProblem('answer', (p) => ({ ...p, answers: readGolds({ answer: v }, 'answer', this.current!.index) })),
      },
    };
  }
}

export function registerQa(registry: EnvRegistry, entry: TaskDatasetEntry): void {
  registry.register<QaOptions>({
    id: entry.id,
    description: entry.description,
    schema: QaOptions,
    defaults: {
      question_key: entry.questionKey,
      answer_key: entry.answerKey,
      extract_boxed: entry.extractBoxed ?? false,
      eval: entry.evaluation ?? false,
    },
    binding: datasetBinding,
    create: (o: QaOptions, _spec: EnvSpec, seed?: number) => new QaEnv(o, entry, seed ?? 0),
  });
}
