/**
 * GEM's CodeEnv: a programming problem per episode; the answer's last fenced code block runs against
 * the problem's stdin/stdout tests (at most `max_tests`, the longest inputs first) in the sandbox,
 * `max_workers` at a time. Reward 1 when every test passes, else 0; no code block is a format
 * error (−0.1). Runs are subprocesses, so a step never blocks the event loop, and a wrong, crashing,
 * slow or hostile program only ever costs its own reward.
 */
import { z } from 'zod';
import type { EnvSpec } from '../../core/spec.ts';
import { datasetBinding } from '../../data/datasetBinding.ts';
import type { DatasetRow } from '../../data/datasetRegistry.ts';
import { DatasetEnv, requireText, type Graded } from '../../data/datasetEnv.ts';
import type { DatasetSource } from '../../data/datasetSource.ts';
import { datasetOptionFields, datasetSourceFor } from '../../data/datasetOptions.ts';
import { lastCodeBlock, parseTestCases, selectTests, type TestCase } from '../../data/graders/code/testCases.ts';
import { runTests, type RunEach } from '../../data/graders/code/runTests.ts';
import type { TaskDatasetEntry } from '../../data/taskCatalog.ts';
import type { EnvRegistry } from '../../registry/registry.ts';
import type { AttributeTable } from '../../core/envAttributes.ts';
import { runSandboxedEach } from '../../sandbox/sandbox.ts';

export const CODE_FORMAT_ERROR_REWARD = -0.1;

export const CodeOptions = z
  .object({
    ...datasetOptionFields,
    question_key: z.string().min(1).default('problem'),
    test_key: z.string().min(1).default('tests'),
    /** Tests run at once for one answer. */
    max_workers: z.number().int().positive().max(64).default(5),
    max_tests: z.number().int().positive().default(12),
    /** Wall-clock limit of one test run, in seconds (GEM: 10). */
    timeout: z.number().positive().max(600).default(10),
    /** Address-space limit of one test run, in MB. */
    memory_mb: z.number().int().positive().default(1024),
    /** Accepted for GEM compatibility; failures are summarised in info either way. */
    verbose: z.boolean().default(false),
    /** Accepted for GEM compatibility: code always runs in our sandbox (bubblewrap when available). */
    sandbox_type: z.enum(['none', 'bwrap']).default('none'),
  })
  .strict();
export type CodeOptions = z.infer<typeof CodeOptions>;

interface CodeProblem {
  question: string;
  tests: TestCase[];
}

export class CodeEnv extends DatasetEnv<CodeProblem> {
  constructor(
    readonly options: CodeOptions,
    private readonly entry: TaskDatasetEntry,
    seed: number,
    source?: DatasetSource,
    /** Where programs run; the shared sandbox by default (tests may inject another runner). */
    private readonly runProgram: RunEach = runSandboxedEach,
  ) {
    super({ source: source ?? datasetSourceFor(entry, options), seed, shuffle: !options.eval });
  }

  protected clone(seed: number): CodeEnv {
    return new CodeEnv(this.options, this.entry, seed, this.config.source, this.runProgram);
  }

  protected prepare(row: DatasetRow, index: number): CodeProblem {
    const tests = parseTestCases(row[this.options.test_key], `Row ${index} column '${this.options.test_key}'`);
    return { question: requireText(row, this.options.question_key, index), tests: selectTests(tests, this.options.max_tests) };
  }

  protected prompt(problem: CodeProblem): string {
    return problem.question;
  }

  protected async grade(action: string, problem: CodeProblem): Promise<Graded> {
    const code = lastCodeBlock(action);
    if (code === undefined) return { reward: CODE_FORMAT_ERROR_REWARD, info: { correct: false, format_error: true } };
    const summary = await runTests(code, problem.tests, {
      run: this.runProgram,
      timeoutMs: this.options.timeout * 1000,
      memoryMb: this.options.memory_mb,
      concurrency: this.options.max_workers,
    });
    const correct = summary.passed === summary.total;
    const info: Record<string, unknown> = { correct, tests_passed: summary.passed, tests_total: summary.total };
    if (summary.failure) info.failure = summary.failure;
    return { reward: correct ? 1 : 0, info };
  }

  sampleRandomAction(): string {
    return '```python\nimport sys\nprint(sys.stdin.read().strip())\n```';
  }

  /** GEM's `env.tests` as GEM holds them ({inputs, outputs}); a write (any form a dataset row may hold) replaces the current problem's tests. */
  override envAttributes(): AttributeTable {
    return {
      ...super.envAttributes(),
      tests: {
        schema: z.unknown(),
        get: () => {
          const tests = this.current?.problem.tests;
          return tests === undefined ? null : { inputs: tests.map((t) => t.input), outputs: tests.map((t) => t.output) };
        },
        set: (v) => this.changeProblem('tests', (p) => ({ ...p, tests: selectTests(parseTestCases(v, "attribute 'tests'"), this.options.max_tests) })),
      },
    };
  }
}

export function registerCode(registry: EnvRegistry, entry: TaskDatasetEntry): void {
  registry.register<CodeOptions>({
    id: entry.id,
    description: entry.description,
    schema: CodeOptions,
    defaults: { question_key: entry.questionKey, test_key: entry.answerKey, eval: entry.evaluation ?? false },
    binding: datasetBinding,
    create: (o: CodeOptions, _spec: EnvSpec, seed?: number) => new CodeEnv(o, entry, seed ?? 0),
    cpuBound: true,
  });
}
