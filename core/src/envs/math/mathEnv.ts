/**
 * GEM's MathEnv: one problem per episode, the problem text as the observation (through
 * `prompt_template`: raw for the math:* training sets as in GEM, with a `\boxed{}` instruction for the
 * eval:* sets), and a 1/0 reward for the final `\boxed{}` answer (our TypeScript grader, anchored to
 * math-verify). With `use_format_error_reward` an answer without any `\boxed{}` costs −0.1.
 *
 * math:Geometry3K (GEM's MathVisualEnv) is the same env with the problem's images in `info.images`,
 * so that observations stay text on the wire.
 */
import { z } from 'zod';
import type { EnvSpec } from '../../core/spec.ts';
import { datasetBinding } from '../../data/datasetBinding.ts';
import type { DatasetRow } from '../../data/datasetRegistry.ts';
import { DatasetEnv, requireAnswers, requireText, type Graded } from '../../data/datasetEnv.ts';
import type { DatasetSource } from '../../data/datasetSource.ts';
import { applyPromptTemplate, datasetOptionFields, datasetSourceFor, promptTemplateField } from '../../data/datasetOptions.ts';
import { gradeMathResponse, type MathGraderOptions } from '../../data/graders/math/mathGrader.ts';
import type { ResetOptions, ResetResult } from '../../core/env.ts';
import type { TaskDatasetEntry } from '../../data/taskCatalog.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import type { AttributeTable } from '../../core/envAttributes.ts';

export const FORMAT_ERROR_REWARD = -0.1;

export const MathOptions = z
  .object({
    ...datasetOptionFields,
    question_key: z.string().min(1).default('problem'),
    answer_key: z.string().min(1).default('answer'),
    /** Geometry3K: the column holding the problem's images (passed through in info.images). */
    image_key: z.string().min(1).optional(),
    use_format_error_reward: z.boolean().default(false),
    /**
     * Accepted for GEM compatibility. GEM grades in a subprocess with a 1 s timeout; our grader is
     * bounded by construction (size limits) and runs in-process.
     */
    use_mp: z.boolean().default(true),
    /** `none` (the problem as given), `boxed` (asks for a \boxed{} answer) or a text with {question}. */
    prompt_template: promptTemplateField.default('none'),
    /** Decimal places a decimal answer is rounded to before comparing (math-verify's float_rounding). */
    precision: z.number().int().min(0).max(15).default(6),
    /** Variable names matter (`x+1` ≠ `y+1`); false matches them by position, as math-verify's strict=False. */
    strict: z.boolean().default(true),
    /** Several boxes: `adjacent` grades a list of boxes in a row together (`\boxed{1}, \boxed{2}`); `last` only the last box (GEM). */
    multi_box: z.enum(['adjacent', 'last']).default('adjacent'),
    /** With no box, grade the final answer the prose states ("The final answer is $9$"). Evaluation only. */
    extract_from_prose: z.boolean().default(false),
  })
  .strict()
  .refine((o) => !o.extract_from_prose || o.eval, {
    message: 'extract_from_prose is for evaluation only (set eval=true); a training reward should insist on the \\boxed{} answer',
    path: ['extract_from_prose'],
  });
export type MathOptions = z.infer<typeof MathOptions>;

interface MathProblem {
  question: string;
  answers: string[];
  images?: unknown;
}

export class MathEnv extends DatasetEnv<MathProblem> {
  private readonly grading: MathGraderOptions;

  constructor(readonly options: MathOptions, private readonly entry: TaskDatasetEntry, seed: number, source?: DatasetSource) {
    super({ source: source ?? datasetSourceFor(entry, options), seed, shuffle: !options.eval });
    this.grading = { precision: options.precision, strict: options.strict, multiBox: options.multi_box, extractFromProse: options.extract_from_prose };
  }

  protected clone(seed: number): MathEnv {
    return new MathEnv(this.options, this.entry, seed, this.config.source);
  }

  protected prepare(row: DatasetRow, index: number): MathProblem {
    const problem: MathProblem = {
      question: requireText(row, this.options.question_key, index),
      answers: requireAnswers(row, this.options.answer_key, index),
    };
    if (this.options.image_key) problem.images = row[this.options.image_key] ?? [];
    return problem;
  }

  protected prompt(problem: MathProblem): string {
    return applyPromptTemplate(this.options.prompt_template, problem.question);
  }

  override async reset(opts?: ResetOptions): Promise<ResetResult> {
    const result = await super.reset(opts);
    if (this.options.image_key) result.info = { images: this.current?.problem.images ?? [] };
    return result;
  }

  protected grade(action: string, problem: MathProblem): Graded {
    const { correct, extracted, source } = gradeMathResponse(action, problem.answers, this.grading);
    if ((extracted === undefined || source === 'prose') && this.options.use_format_error_reward && !correct) return { reward: FORMAT_ERROR_REWARD, info: {} };
    return { reward: correct ? 1 : 0, info: { correct } };
  }

  sampleRandomAction(): string {
    return '\\boxed{42}';
  }

  /** GEM's `env.answer`: the current gold (one value, or the list a row holds); a write regrades the current problem. */
  override envAttributes(): AttributeTable {
    return {
      ...super.envAttributes(),
      answer: {
        schema: z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()])).min(1)]),
        get: () => {
          const answers = this.current?.problem.answers;
          return answers === undefined ? null : answers.length === 1 ? answers[0] : answers;
        },
        set: (v) => this.changeProblem('answer', (p) => ({ ...p, answers: requireAnswers({ answer: v as string }, 'answer', this.current!.index) })),
      },
    };
  }
}

export function registerMath(registry: EnvRegistry, entry: TaskDatasetEntry): void {
  registry.register<MathOptions>({
    id: entry.id,
    description: entry.description,
    schema: MathOptions,
    defaults: {
      question_key: entry.questionKey,
      answer_key: entry.answerKey,
      eval: entry.evaluation ?? false,
      // Evaluation sets are played against chat models directly: ask for the boxed answer.
      prompt_template: entry.evaluation ? 'boxed' : 'none',
      ...(entry.kind === 'math_visual' ? { image_key: 'images' } : {}),
    },
    binding: datasetBinding,
    create: (o: MathOptions, _spec: EnvSpec, seed?: number) => new MathEnv(o, entry, seed ?? 0),
  });
}
