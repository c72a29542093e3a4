import { describe, expect, it } from 'vitest';
import '../../src/envs/index.ts';
import { PAST_END_OBSERVATION, pastEndStep, takePastEndPolicy } from '../../src/core/pastEnd.ts';
import { makeVec } from '../../src/vector/makeVec.ts';

describe('past-end policy', () => {
  it('strict_reset is read and removed from the options, and must be a boolean', () => {
    const opts: Record<string, unknown> = { max_turns: 2, strict_reset: true };
    expect(takePastEndPolicy(opts)).toBe('raise');
    expect(opts).toEqual({ max_turns: 2 });
    expect(takePastEndPolicy({ strict_reset: false })).toBe('answer');
    expect(takePastEndPolicy({})).toBeUndefined();
    expect(() => takePastEndPolicy({ strict_reset: 'yes' })).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });

  it('the past-end row is terminal, unpaid, and warns only when asked', () => {
    expect(pastEndStep()).toEqual({ observation: PAST_END_OBSERVATION, reward: 0, terminated: true, truncated: false, info: { episode_over: true } });
    expect(pastEndStep('w').info).toEqual({ episode_over: true, past_end_warning: 'w' });
  });

  it('a real game made with strict_reset keeps its own options valid and refuses a past-end step', async () => {
    const vec = makeVec('game:GuessTheNumber-v0-easy', { options: { max_turns: 1, strict_reset: true }, autoresetMode: 'disabled', mode: 'pool' });
    await vec.reset({ seed: 1 });
    const end = await vec.step(['\\boxed{0}']); // out of range: the one turn is spent
    expect(end.terminated[0] || end.truncated[0]).toBe(true);
    await expect(vec.step(['\\boxed{3}'])).rejects.toMatchObject({ code: 'RESET_NEEDED' });
    await vec.close();
  });
});
