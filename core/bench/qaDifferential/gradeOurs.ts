/** gem-ts's side of the QA differential: each case through the real `qa:HotpotQA` or `logic:RuleTaker-d0` env. */
import { createHash } from 'node:crypto';
import { make } from '../../src/index.ts';
import { jsValue, type QaCase } from './corpus.ts';

export async function gradeQaWithGemTs(cases: QaCase[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (const boxed of [false, true]) {
    const mine = cases.filter((c) => c.boxed === boxed);
    const env = make(boxed ? 'logic:RuleTaker-d0' : 'qa:HotpotQA', { dataset: mine.map((c) => ({ question: c.question, answer: jsValue(c.gold) })), eval: true });
    for (let i = 0; i < mine.length; i++) {
      await env.reset({ options: { idx: i } });
      out.set(mine[i].id, (await env.step(mine[i].reply)).reward);
    }
    await env.close();
  }
  return out;
}

export function qaCaseDigest(c: QaCase): string {
  return createHash('sha256').update(JSON.stringify([c.boxed, c.gold, c.reply])).digest('hex').slice(0, 16);
}
