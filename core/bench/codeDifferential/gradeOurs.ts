/** gem-ts's side of the code differential: each reply through the real `code:CodeContest` env, timed. */
import { make } from '../../src/index.ts';
import type { CodeProblem, CodeReply } from './corpus.ts';

export interface OurVerdict {
  id: number;
  reward: number;
  seconds: number;
  failure?: string;
}

export interface ReplyGrader {
  grade(reply: CodeReply): Promise<OurVerdict>;
  close(): Promise<void>;
}

/** One env over all the problems; each reply is a reset to its problem and one timed step. */
export function gemTsGrader(problems: CodeProblem[], timeoutS: number): ReplyGrader {
  const rows = problems.map((p) => ({ problem: p.problem, tests: JSON.stringify(p.tests) }));
  const env = make('code:CodeContest', { dataset: rows, timeout: timeoutS, eval: true });
  return {
    async grade(reply) {
      await env.reset({ options: { idx: reply.problem } });
      const t0 = performance.now();
      const r = await env.step(reply.text);
      const failure = typeof r.info.failure === 'string' ? r.info.failure : undefined;
      return { id: reply.id, reward: r.reward, seconds: (performance.now() - t0) / 1000, ...(failure ? { failure } : {}) };
    },
    close: () => env.close(),
  };
}

export async function gradeWithGemTs(problems: CodeProblem[], replies: CodeReply[], timeoutS: number): Promise<Map<number, OurVerdict>> {
  const grader = gemTsGrader(problems, timeoutS);
  const out = new Map<number, OurVerdict>();
  try {
    for (const reply of replies) out.set(reply.id, await grader.grade(reply));
  } finally {
    await grader.close();
  }
  return out;
}
