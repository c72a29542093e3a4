/**
 * The seeded subset of the code differential that `npm test` grades (core/test/envs/code/
 * codeDifferential.test.ts) against GEM verdicts checked in: every reference solution of two
 * problems with an output over 64 KiB, and one reply of every other kind/variant, taken from
 * problems in turn. A digest per reply makes a changed generator fail loudly instead of comparing
 * against verdicts of other replies.
 */
import { createHash } from 'node:crypto';
import type { CodeProblem, CodeReply } from './corpus.ts';

export function fixtureSubset(problems: CodeProblem[], replies: CodeReply[]): CodeReply[] {
  const large = problems.map((p, i) => ({ p, i })).filter((x) => x.p.largeOutput).slice(0, 2).map((x) => x.i);
  const picked = replies.filter((r) => r.kind === 'correct' && large.includes(r.problem));
  const seen = new Set(picked.map((r) => `${r.kind}/${r.variant}`));
  for (const r of replies) {
    const key = `${r.kind}/${r.variant}`;
    // Spread the picks over the problems: the n-th variant comes from the n-th problem on.
    if (!seen.has(key) && r.problem >= seen.size % problems.length) {
      seen.add(key);
      picked.push(r);
    }
  }
  return picked.sort((a, b) => a.id - b.id);
}

export function replyDigest(problem: CodeProblem, reply: CodeReply): string {
  return createHash('sha256').update(JSON.stringify([problem.tests, reply.text])).digest('hex').slice(0, 16);
}

/** A fixture as JSON with one line per entry of its list, so diffs of a rerun stay readable. */
export function fixtureJson(fixture: Record<string, unknown>): string {
  return `{\n${Object.entries(fixture)
    .map(([k, v]) => (Array.isArray(v) ? `"${k}": [\n${v.map((x) => JSON.stringify(x)).join(',\n')}\n]` : `${JSON.stringify(k)}: ${JSON.stringify(v)}`))
    .join(',\n')}\n}\n`;
}
