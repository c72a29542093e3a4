"""A batch of trajectories run concurrently, env calls in a thread pool, as SkyRL's generator runs them
(its `_run_in_executor_if_available`: asyncio + a ThreadPoolExecutor). The `skyrl` generator package
itself needs Python >= 3.12 and is not installed here; this drives the same env calls."""
import asyncio
from concurrent.futures import ThreadPoolExecutor

import skyrl_gym
from conftest import GAME
from gem_ts_adapter_kit.testing import play_directly

GUESSES = [f"\\boxed{{{g}}}" for g in (5, 8, 6, 7, 2, 3, 4, 9, 10, 1)]


async def trajectory(pool, row):
    loop = asyncio.get_running_loop()
    env = skyrl_gym.make(row["env_class"], env_config={}, extras=dict(row["extras"]))
    await loop.run_in_executor(pool, env.init, [])
    rewards, done, turn = [], False, 0
    while not done:
        out = await loop.run_in_executor(pool, env.step, GUESSES[turn])
        rewards.append(out["reward"])
        done, turn = out["done"], turn + 1
    metrics = env.get_metrics()
    await loop.run_in_executor(pool, env.close)
    return rewards, metrics


async def batch(rows, workers):
    with ThreadPoolExecutor(workers) as pool:
        return await asyncio.gather(*(trajectory(pool, r) for r in rows))


def test_a_batch_in_a_thread_pool_matches_direct_play(registered):
    # Eight trajectories: four seeds, two samples each (GRPO's n_samples_per_prompt), through both classes.
    rows = [{"env_class": f"gem_ts/{GAME}", "extras": {"seed": s, "max_turns": 10}} for s in range(4)]
    rows += [{"env_class": "gem_ts", "extras": {"env_id": GAME, "seed": s, "max_turns": 10}} for s in range(4)]
    results = asyncio.run(batch(rows, workers=4))
    assert len(results) == 8
    total_steps = 0
    for row, (rewards, metrics) in zip(rows, results):
        seed = row["extras"]["seed"]
        _, direct, _ = play_directly(GAME, seed, GUESSES)
        assert rewards == direct and metrics["steps"] == len(direct) and metrics["return"] == sum(direct)
        total_steps += len(rewards)
    # Both samples of a seed played the same episode.
    assert [r for r, _ in results[:4]] == [r for r, _ in results[4:]]
    assert total_steps == sum(m["steps"] for _, m in results) >= 8
    assert sum(1 for r, _ in results if 1.0 in r) >= 1  # some episodes are won with this fixed sequence
