"""The benchmark's three tasks: a sparse-reward game, a dense per-turn-reward game, a single-turn task."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Task:
    """One benchmark task: a gem-ts env id, its options, wrappers and discount."""

    key: str
    env_id: str
    env_kwargs: dict
    wrappers: str
    gamma: float
    description: str
    # A uniformly random valid action given the observation: the warm start's targets and the
    # random baseline (on the game, a number not guessed yet: GEM calls a repeat an invalid action).
    valid_action: Callable[[np.random.Generator, str], str]
    # This task's share of --iters, and of --eval-every (the same for every algorithm).
    iters_share: float = 1.0
    eval_every_share: float = 1.0
    # The tiny policy's prompt window in tokens and the policy learning rate, unless --context / --lr
    # say otherwise (the same for every algorithm on this task).
    context: int = 48
    lr: float = 1e-3
    # When set, an episode succeeds when its return reaches this (every turn scored); otherwise GEM's
    # rule: the last turn paid the success reward 1.0.
    success_return: float | None = None

    def iterations(self, iters: int) -> int:
        return max(1, round(iters * self.iters_share))

    def eval_interval(self, eval_every: int) -> int:
        return max(1, round(eval_every * self.eval_every_share))

    def succeeded(self, rewards: list[float]) -> bool:
        if not rewards:
            return False
        if self.success_return is not None:
            return sum(rewards) >= self.success_return - 1e-9
        return rewards[-1] >= 1.0 - 1e-9


def _boxed_int(lo: int, hi: int) -> Callable[[np.random.Generator, str], str]:
    return lambda rng, observation: f"\\boxed{{{int(rng.integers(lo, hi + 1))}}}"


def _fresh_guess(lo: int, hi: int) -> Callable[[np.random.Generator, str], str]:
    """A uniformly random number in range that the observation does not show as guessed already."""

    def act(rng: np.random.Generator, observation: str) -> str:
        guessed = {int(g) for g in re.findall(r"you guessed (\d+)", observation)}
        left = [k for k in range(lo, hi + 1) if k not in guessed] or list(range(lo, hi + 1))
        return f"\\boxed{{{left[int(rng.integers(len(left)))]}}}"

    return act


def _shown_number(rng: np.random.Generator, observation: str) -> str:
    """One of the numbers PickLargest shows, uniformly: a valid answer that knows nothing of which is largest."""
    shown = observation.rsplit("Numbers:", 1)[-1].split()
    return f"\\boxed{{{shown[int(rng.integers(len(shown)))]}}}"


LAMPS, LAMP_TURNS = 3, 5  # game:LampChain-v0's defaults

TASKS: dict[str, Task] = {
    "game": Task(
        key="game",
        env_id="game:GuessTheNumber-v0-easy",
        env_kwargs={},
        wrappers="concat",
        gamma=0.9,
        description="sparse multi-turn: GuessTheNumber 1–10 in 4 turns, reward on the last turn only, `concat` history, γ=0.9 (GEM's game recipe)",
        valid_action=_fresh_guess(1, 10),
    ),
    "dense": Task(
        key="dense",
        env_id="game:LampChain-v0",
        env_kwargs={},
        wrappers="concat",
        # A turn's consequences reach one turn ahead (a miss halves the next hit): γ = 0.5 credits a
        # press with half of the next turn's reward, and keeps later turns' noise out of its return.
        gamma=0.5,
        description=(f"dense multi-turn: LampChain, {LAMP_TURNS} turns, press the lit one of {LAMPS} lamps, "
                     "every turn paid at once (1, or 0.5 right after a miss), `concat` history, γ=0.5"),
        valid_action=_boxed_int(1, LAMPS),
        iters_share=0.5,
        success_return=float(LAMP_TURNS),
    ),
    "single": Task(
        key="single",
        env_id="game:PickLargest-v0",
        env_kwargs={},
        wrappers="",
        gamma=1.0,
        description=("single-turn: PickLargest, name the largest of 2 to 6 shown numbers (1-9); prompts differ "
                     "in difficulty (a guess among them is right 1 time in 2 to 6), γ=1"),
        valid_action=_shown_number,
        iters_share=0.5,
        # It is learnt within ~15 iterations: evaluating every 3 draws that part of the curve (cheap: one turn).
        eval_every_share=0.2,
        context=24,  # the numbers come last in the prompt: 24 tokens hold them and the instruction's end
    ),
}
