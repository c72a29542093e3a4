"""A lockstep batch against a real gem-ts server: samples arrive and answer at random times, yet the
batch is reset in one call per env config and stepped in one call per config per turn."""
import asyncio
import random

import gem_ts.aio
import pytest
from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.lockstep import BatchAborted, LockstepBatch
from gem_ts_adapter_kit.testing import play_directly

ENV = "game:GuessTheNumber-v0-easy"
GUESSES = [f"\\boxed{{{g}}}" for g in (1, 2, 3, 4, 5)]


async def _play(batch, client, row, rng):
    await asyncio.sleep(rng.random() * 0.02)  # arrive in any order
    episode, first = await batch.start(row, client)
    try:
        for guess in GUESSES:
            await asyncio.sleep(rng.random() * 0.02)  # "generation" takes a different time per sample
            _, _, done = await episode.step(guess)
            if done:
                break
    finally:
        episode.finish()
    return first, episode.rewards


def _run(rows, play=_play):
    async def main():
        client = await gem_ts.aio.connect()
        batch = LockstepBatch(rows)
        rng = random.Random(7)
        try:
            results = await asyncio.wait_for(asyncio.gather(*(play(batch, client, r, rng) for r in rows)), 120)
            return results, dict(batch.calls)
        finally:
            await batch.close()
            await client.close()

    return asyncio.run(main())


def test_episodes_match_direct_play_with_one_call_per_config_per_turn():
    rows = [EnvRow(ENV, s) for s in (0, 1, 2, 7, 7)] + [EnvRow(ENV, s, {"max_turns": 2}) for s in (3, 4)]
    results, calls = _run(rows)
    turns = {}
    for row, (first, rewards) in zip(rows, results):
        want_first, want_rewards, _ = play_directly(ENV, row.seed, GUESSES, **row.options)
        assert first == want_first
        assert rewards == pytest.approx(want_rewards)
        key = tuple(sorted(row.options.items()))
        turns[key] = max(turns.get(key, 0), len(want_rewards))
    # Two env configs: one vector env and one reset each; one step call per config per turn.
    assert calls == {"make_vec": 2, "reset": 2, "step": sum(turns.values())}
    assert sum(turns.values()) > 2  # the episodes really ran several turns


def test_a_failing_sample_fails_its_siblings_instead_of_leaving_them_at_the_barrier():
    rows = [EnvRow(ENV, s) for s in range(4)]

    async def play(batch, client, row, rng):
        try:
            episode, _ = await batch.start(row, client)
            if row.seed == 2:
                raise RuntimeError("the model server went away")
            while not episode.done:
                await episode.step(GUESSES[0])
        except BaseException as err:
            batch.abort(err)
            raise

    with pytest.raises((RuntimeError, BatchAborted)) as caught:
        _run(rows, play)
    assert "the model server went away" in str(caught.value)


def test_rows_outside_the_batch_and_an_empty_batch_are_refused():
    with pytest.raises(ValueError, match="at least one row"):
        LockstepBatch([])

    async def main():
        batch = LockstepBatch([EnvRow(ENV, 0)])
        with pytest.raises(ValueError, match="not one of this batch's rows"):
            await batch.start(EnvRow(ENV, 1), client=None)

    asyncio.run(main())


def test_unstarted_counts_the_rows_no_episode_has_joined_yet():
    async def main():
        client = await gem_ts.aio.connect()
        batch = LockstepBatch([EnvRow(ENV, 0), EnvRow(ENV, 1), EnvRow(ENV, 1)])
        rng = random.Random(1)
        try:
            counts = [batch.unstarted]
            first_two = [asyncio.ensure_future(_play(batch, client, EnvRow(ENV, s), rng)) for s in (0, 1)]
            await asyncio.sleep(0.2)  # both have joined and wait for the third before the reset
            counts.append(batch.unstarted)
            assert not any(t.done() for t in first_two)
            await asyncio.wait_for(asyncio.gather(_play(batch, client, EnvRow(ENV, 1), rng), *first_two), 60)
            return counts + [batch.unstarted], dict(batch.calls)
        finally:
            await batch.close()
            await client.close()

    counts, calls = asyncio.run(main())
    assert counts == [3, 1, 0] and calls["reset"] == 1
