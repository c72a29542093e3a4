"""Print an episode turn by turn, as GEM's ``gem.utils.debug`` does, for envs and vector envs alike."""

from __future__ import annotations

import inspect
import time
from pprint import pprint
from typing import Any, Callable, Dict

import numpy as np

_RULE = "=" * 30


def ppprint(x: Any) -> None:
    """Pretty-prints ``x``; a list or tuple item by item with a ``k/n`` header (one per vector env)."""
    if isinstance(x, (list, tuple)):
        for i, item in enumerate(x):
            print("-" * 5, f"{i + 1}/{len(x)}:")
            pprint(item)
            print("")
    else:
        pprint(x)


def _section(title: str, value: Any) -> None:
    print("-" * 10, title, "-" * 10)
    ppprint(value)


def _all_done(terminated: Any, truncated: Any) -> bool:
    done = np.logical_or(terminated, truncated)
    return bool(np.all(done))


def _print_step(count: int, shown: Dict[str, Any], terminated: Any, truncated: Any) -> None:
    print(_RULE)
    print(f"Step {count}")
    for title, value in shown.items():
        _section(title, value)
    print("terminated: ", terminated, "truncated: ", truncated)
    print(_RULE)


Shown = Callable[[Any, Any, Any], Dict[str, Any]]


def _run_printing(env: Any, choose: Callable[[Any], Any], shown: Shown, ignore_done: bool, max_steps: float) -> None:
    """The loop both sync printers share: ``choose(obs)`` is what to step with, ``shown(obs, action,
    next_obs)`` what to print before the reward."""
    start = time.time()
    obs, _ = env.reset()
    count = 0
    while True:
        count += 1
        action = choose(obs)
        next_obs, reward, terminated, truncated, _ = env.step(action)
        _print_step(count, {**shown(obs, action, next_obs), "reward": reward}, terminated, truncated)
        obs = next_obs
        if (not ignore_done and _all_done(terminated, truncated)) or count >= max_steps:
            break
    print(f"----TIME: {time.time() - start:.2f} seconds")


def run_and_print_episode(env: Any, policy: Callable[[Any], Any], ignore_done: bool = False, max_steps: float = 1e9) -> None:
    """Resets ``env`` and steps it with ``policy(obs)`` until every env is done (or ``max_steps``),
    printing observation, action and reward of each step."""
    _run_printing(env, policy, lambda obs, action, _: {"observation": obs, "action": action}, ignore_done, max_steps)


def run_and_print_episode_with_selective_step(
    env: Any, policy: Callable[[Any], Any], ignore_done: bool = False, max_steps: float = 1e9, seed: int = 0
) -> None:
    """Like :func:`run_and_print_episode` for a vector env, stepping a random non-empty half of the envs
    each time (a ``{index: action}`` dict), which exercises subset steps."""
    rng = np.random.default_rng(seed)

    def choose(obs: Any) -> Dict[int, Any]:
        actions = policy(obs)
        chosen: Dict[int, Any] = {}
        while not chosen:
            chosen = {i: a for i, a in enumerate(actions) if rng.random() > 0.5}
        return chosen

    _run_printing(env, choose, lambda _, action, next_obs: {"action": action, "next_observation": next_obs}, ignore_done, max_steps)


async def run_and_print_episode_async(
    env: Any, policy: Callable[[Any], Any], ignore_done: bool = False, max_steps: float = 1e9
) -> None:
    """The asyncio form: ``env.reset``/``env.step`` and ``policy`` may be coroutines or plain calls."""

    async def maybe_await(value: Any) -> Any:
        return await value if inspect.isawaitable(value) else value

    start = time.time()
    obs, _ = await maybe_await(env.reset())
    count = 0
    while True:
        count += 1
        action = await maybe_await(policy(obs))
        next_obs, reward, terminated, truncated, _ = await maybe_await(env.step(action))
        _print_step(count, {"observation": obs, "action": action, "reward": reward}, terminated, truncated)
        obs = next_obs
        if (not ignore_done and _all_done(terminated, truncated)) or count >= max_steps:
            break
    print(f"----TIME: {time.time() - start:.2f} seconds")


__all__ = ["ppprint", "run_and_print_episode", "run_and_print_episode_async", "run_and_print_episode_with_selective_step"]
