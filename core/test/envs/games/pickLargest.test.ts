import { describe, expect, it } from 'vitest';
import { make } from '../../../src/index.ts';

const shown = (observation: string) => /Numbers: ([\d ]+)$/.exec(observation)![1].split(' ').map(Number);

describe('game:PickLargest', () => {
  it('pays 1 for the largest shown number and 0 for any other, in one turn', async () => {
    for (const pick of ['largest', 'other'] as const) {
      const env = make('game:PickLargest-v0');
      const { observation } = await env.reset({ seed: 11 });
      const numbers = shown(observation);
      const largest = Math.max(...numbers);
      const answer = pick === 'largest' ? largest : numbers.find((n) => n !== largest)!;
      const r = await env.step(`I pick \\boxed{${answer}}`);
      expect(r).toMatchObject({ reward: pick === 'largest' ? 1 : 0, terminated: true, truncated: false });
      expect(r.info).toMatchObject({ largest, count: numbers.length });
    }
  });

  it('shows 2 to 6 distinct numbers from 1 to 9, fixed by the seed, every count met', async () => {
    const counts = new Set<number>();
    for (let seed = 0; seed < 200; seed++) {
      const env = make('game:PickLargest-v0');
      const numbers = shown((await env.reset({ seed })).observation);
      expect(new Set(numbers).size).toBe(numbers.length);
      expect(numbers.every((n) => n >= 1 && n <= 9)).toBe(true);
      counts.add(numbers.length);
      const again = make('game:PickLargest-v0');
      expect(shown((await again.reset({ seed })).observation)).toEqual(numbers);
    }
    expect([...counts].sort()).toEqual([2, 3, 4, 5, 6]);
  });

  it('ends on a format error with −0.1, like the other games', async () => {
    const env = make('game:PickLargest-v0');
    await env.reset({ seed: 1 });
    const r = await env.step('nine');
    expect(r).toMatchObject({ reward: -0.1, terminated: true, info: { format_error: true } });
  });

  it('rejects options that cannot be met', () => {
    expect(() => make('game:PickLargest-v0', { min_numbers: 1 })).toThrow(/min_numbers/);
    expect(() => make('game:PickLargest-v0', { min_numbers: 5, max_numbers: 3 })).toThrow(/max_numbers/);
    expect(() => make('game:PickLargest-v0', { max_numbers: 7, max_value: 5 })).toThrow(/max_numbers/);
  });
});
