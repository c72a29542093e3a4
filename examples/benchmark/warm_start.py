"""The shared starting point: random play for observations, then a short supervised warm start."""
from __future__ import annotations

import time

import numpy as np
import torch

from .rollouts import run_episodes
from .tasks import Task


def random_play_observations(vec, task: Task, count: int, seed: int) -> list[str]:
    """Observations met while playing random valid actions: the warm start's prompts and the vocabulary."""
    rng = np.random.default_rng(seed)
    observations: list[str] = []
    start = 10_000_000 + seed * 1000
    n = vec.num_envs
    while len(observations) < count:
        eps = run_episodes(vec, None, task, [start + i for i in range(n)], list(range(n)), 1.0, False, None,
                           actor=lambda o: task.valid_action(rng, o))
        start += n
        observations += [t.observation for e in eps for t in e.turns]
    return observations[:count]


def warm_start(policy, task: Task, observations: list[str], args, seed: int, log=None) -> dict:
    """Supervised phase: learn to READ the env's text and to WRITE a valid action; nothing about good play.

    Two losses on observations met in random play: next-token prediction on the observation itself (what
    pre-training gives a real LLM: without it, fitting random targets teaches the tiny model to ignore
    its input, and RL then has no features of the hints to build on), and the action format, with
    targets drawn uniformly from the valid actions (on the game: numbers not guessed yet), so the
    model writes `\\boxed{k}` but learns nothing about which k is good: that is left to RL.
    """
    rng = np.random.default_rng(seed + 7)
    opt = torch.optim.AdamW(policy.model.parameters(), lr=args.sft_lr, weight_decay=0.0)
    t0 = time.time()
    losses = []
    policy.model.train()
    for step in range(args.sft_steps):
        idx = rng.integers(0, len(observations), size=args.sft_batch)
        prompts = policy.encode_prompts([observations[i] for i in idx])
        resp = policy.encode_targets([task.valid_action(rng, observations[i]) for i in idx])
        logp, prompt_nll = policy.warm_start_terms(prompts, resp, args.sft_lm_weight > 0)
        loss = -(logp * resp.mask).sum() / resp.mask.sum()
        if prompt_nll is not None:
            loss = loss + args.sft_lm_weight * prompt_nll
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.model.parameters(), args.grad_clip)
        opt.step()
        losses.append(loss.item())
        if log is not None:
            log.progress(f"warm start ({task.key}, seed {seed})", step + 1, args.sft_steps, f"loss {np.mean(losses[-10:]):.3f}")
    if log is not None:
        log.done()
    return {"steps": args.sft_steps, "final_loss": float(np.mean(losses[-10:])) if losses else None,
            "seconds": time.time() - t0}
