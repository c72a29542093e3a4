"""Playing episodes on a gem-ts vector env with a policy, batched across episodes, and timing it."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from .tasks import Task


@dataclass
class Transition:
    observation: str
    action: str
    response: list[int]  # response token ids (no padding)
    reward: float
    done: bool
    logprobs: list[float] = field(default_factory=list)  # log π(token) of the response when sampled


@dataclass
class Episode:
    seed: int
    group: int
    turns: list[Transition] = field(default_factory=list)
    success: bool = False  # by the task's rule, set when the episode ends

    @property
    def total_reward(self) -> float:
        return float(sum(t.reward for t in self.turns))


@dataclass
class Clock:
    """Where a run's time goes: env round trips vs the policy's forward/backward passes, and tokens."""

    env_s: float = 0.0  # vec.reset / vec.step (the gem-ts server, over ZeroMQ)
    generate_s: float = 0.0  # sampling responses
    update_s: float = 0.0  # log-probs, losses, backward, optimiser (and PPO's critic)
    eval_s: float = 0.0  # held-out evaluation (env and model together)
    episodes: int = 0  # training episodes
    turns: int = 0  # training transitions
    prompt_tokens: int = 0  # non-padding prompt tokens of the training transitions
    response_tokens: int = 0  # generated tokens of the training transitions

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def run_episodes(vec, policy, task: Task, seeds: list[int], groups: list[int], temperature: float, greedy: bool,
                 generator: torch.Generator | None, clock: Clock | None = None, max_steps: int = 1000,
                 actor=None) -> list[Episode]:
    """Plays one episode per env of `vec` (env i reset with seeds[i]) until every one has ended.

    Each turn, the observations of every episode still running go through the policy in one batch.
    Finished envs are simply no longer stepped (dict actions step a subset), so the vector env's
    autoreset never leaks a second episode into the batch. `actor` replaces the policy (baselines).
    """
    clock = clock or Clock()
    t = time.perf_counter()
    observations, _ = vec.reset(seed=list(seeds))
    clock.env_s += time.perf_counter() - t
    observations = list(observations)
    episodes = [Episode(seed=s, group=g) for s, g in zip(seeds, groups)]
    active = list(range(len(seeds)))
    for _ in range(max_steps):
        if not active:
            break
        obs = [observations[i] for i in active]
        t = time.perf_counter()
        if actor is None:
            prompts = policy.encode_prompts(obs)
            resp = policy.sample(prompts, temperature, greedy, generator)
            texts = resp.texts
            lengths = resp.lengths()
            rows = [row[:n] for row, n in zip(resp.ids.cpu().tolist(), lengths)]
            logprobs = [row[:n] for row, n in zip(resp.logprobs.cpu().tolist(), lengths)]
            clock.prompt_tokens += policy.prompt_tokens(prompts)
            clock.response_tokens += sum(len(r) for r in rows)
        else:
            texts = [actor(o) for o in obs]
            rows = [[] for _ in active]
            logprobs = [[] for _ in active]
        t_env = time.perf_counter()
        clock.generate_s += t_env - t
        next_obs, rewards, terminated, truncated, _ = vec.step({i: a for i, a in zip(active, texts)})
        clock.env_s += time.perf_counter() - t_env
        still = []
        for k, i in enumerate(active):
            done = bool(terminated[k]) or bool(truncated[k])
            episodes[i].turns.append(Transition(obs[k], texts[k], rows[k], float(rewards[k]), done, logprobs[k]))
            if done:
                episodes[i].success = task.succeeded([tr.reward for tr in episodes[i].turns])
                continue
            observations[i] = next_obs[k]
            still.append(i)
        active = still
    else:
        raise RuntimeError(f"episodes did not end within {max_steps} steps")
    clock.episodes += len(episodes)
    clock.turns += sum(len(e.turns) for e in episodes)
    return episodes


def summarize(episodes: list[Episode]) -> dict:
    return {
        "success": float(np.mean([e.success for e in episodes])),
        "return": float(np.mean([e.total_reward for e in episodes])),
        "turns": float(np.mean([len(e.turns) for e in episodes])),
    }
