"""One algorithm's training run from the shared warm start: rollouts, advantages, clipped policy loss.

Every algorithm minimises the same clipped-ratio policy loss over response tokens (summed per
response, divided by a constant --max-new-tokens, Dr.GRPO style) with Adam; with --epochs 1 and
--minibatches 1 the ratio is 1 and this is the plain policy gradient. Only the advantages differ
(advantages.py). PPO adds a turn-level critic: a copy of the warm-started network with a scalar head.
"""
from __future__ import annotations

import copy
import math
import time

import numpy as np
import torch
import torch.nn as nn

from .advantages import ALGO_LABELS, compute_advantages
from .responses import pad_responses
from .rollouts import Clock, Transition, run_episodes, summarize
from .tasks import Task


class Critic(nn.Module):
    """PPO's turn-level critic: a copy of the warm-started network reading the state, and a scalar head."""

    def __init__(self, policy) -> None:
        super().__init__()
        self.body = copy.deepcopy(policy)
        self.head = nn.Linear(policy.hidden_size, 1).to(policy.device)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def parameters(self, recurse: bool = True):  # the body is a plain object holding a module
        return list(self.body.model.parameters()) + list(self.head.parameters())

    def forward(self, prompts: dict) -> torch.Tensor:
        return self.head(self.body.last_hidden(prompts)).squeeze(-1)


@torch.no_grad()
def critic_values(critic: Critic, policy, observations: list[str], chunk: int) -> list[float]:
    out = []
    for s in range(0, len(observations), chunk):
        out += critic(policy.encode_prompts(observations[s : s + chunk])).float().cpu().tolist()
    return out


def policy_update(policy, optimizer, batch: list[Transition], advantages: np.ndarray, args, generator,
                  critic=None, critic_opt=None, value_targets=None, old_values=None) -> dict:
    """Clipped-ratio policy loss (and PPO's clipped value loss) over `epochs` x `minibatches` steps."""
    n = len(batch)
    prompts_all = [t.observation for t in batch]
    # The old log-probs were recorded when the responses were sampled (same weights): no scoring pass.
    resp_all = pad_responses([t.response for t in batch], policy.max_new_tokens, policy.pad_id,
                             [t.action for t in batch], policy.device, [t.logprobs for t in batch])
    adv_all = torch.tensor(advantages, dtype=torch.float32, device=policy.device)
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "clip_frac": 0.0}
    steps = 0
    for _ in range(args.epochs):
        order = torch.randperm(n, generator=generator).tolist()
        size = math.ceil(n / args.minibatches)
        for s in range(0, n, size):
            idx = order[s : s + size]
            prompts = policy.encode_prompts([prompts_all[i] for i in idx])
            resp = resp_all.rows(idx)
            logp = policy.token_logprobs(prompts, resp)
            ratio = torch.exp(logp - resp.logprobs)
            a = adv_all[idx][:, None]
            surrogate = torch.minimum(ratio * a, ratio.clamp(1 - args.clip, 1 + args.clip) * a)
            loss = -(surrogate * resp.mask).sum() / (args.max_new_tokens * len(idx))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.model.parameters(), args.grad_clip)
            optimizer.step()
            stats["policy_loss"] += loss.item()
            stats["clip_frac"] += float((((ratio - 1).abs() > args.clip).float() * resp.mask).sum() / resp.mask.sum())
            if critic is not None:
                v = critic(prompts)
                target = torch.tensor(value_targets[idx], dtype=torch.float32, device=v.device)
                v_old = torch.tensor(old_values[idx], dtype=torch.float32, device=v.device)
                v_clipped = v_old + (v - v_old).clamp(-args.value_clip, args.value_clip)
                vloss = 0.5 * torch.maximum((v - target) ** 2, (v_clipped - target) ** 2).mean()
                critic_opt.zero_grad()
                vloss.backward()
                torch.nn.utils.clip_grad_norm_(critic.parameters(), args.grad_clip)
                critic_opt.step()
                stats["value_loss"] += vloss.item()
            steps += 1
    return {k: v / max(steps, 1) for k, v in stats.items()}


def eval_seeds(seed: int, count: int) -> list[int]:
    """The held-out initial states of one benchmark seed (the same for every algorithm)."""
    return [1_000_000_000 + seed * 10_000 + i for i in range(count)]


def evaluate(vec, policy, task: Task, args, seed: int, generator, actor=None) -> dict:
    """Success rate, mean return and turns over the fixed held-out initial states (one per env of vec)."""
    seeds = eval_seeds(seed, vec.num_envs)
    return summarize(run_episodes(vec, policy, task, seeds, list(range(len(seeds))), 1.0, args.greedy_eval,
                                  generator, actor=actor))


def train_one(algo: str, task: Task, vecs: dict, start_state: dict, warm_eval: dict, policy, args, seed: int,
              log=None) -> dict:
    """Trains a copy of the warm-started policy with one algorithm; returns its learning curve and timings.

    The curve's first point is the warm start's own evaluation (same weights, same held-out states,
    same draws), so it is not recomputed.
    """
    torch.manual_seed(seed)
    policy.model.load_state_dict(start_state)
    gen = torch.Generator().manual_seed(seed)
    eval_gen = lambda: torch.Generator().manual_seed(seed + 1)  # noqa: E731 - same eval draws each time
    opt = torch.optim.Adam(policy.model.parameters(), lr=args.lr or task.lr, betas=(0.9, 0.95))
    critic = critic_opt = None
    if algo == "ppo":
        critic = Critic(policy)
        critic_opt = torch.optim.Adam(critic.parameters(), lr=args.critic_lr, betas=(0.9, 0.95))
    groups = args.rollout_envs // args.group_size
    clock = Clock()
    t0 = time.time()
    curve = [{"iter": 0, "env_steps": 0, "seconds": 0.0, **warm_eval}]
    train_success = []

    def record(it: int) -> None:
        t = time.perf_counter()
        policy.model.eval()
        r = evaluate(vecs["eval"], policy, task, args, seed, eval_gen())
        clock.eval_s += time.perf_counter() - t
        curve.append({"iter": it, "env_steps": clock.turns, "seconds": time.time() - t0, **r})

    iters = task.iterations(args.iters)
    for it in range(1, iters + 1):
        # Same initial states for every algorithm: group g of iteration `it` starts from one seed.
        seeds = [seed * 1_000_000 + it * groups + g for g in range(groups) for _ in range(args.group_size)]
        group_ids = [g for g in range(groups) for _ in range(args.group_size)]
        policy.model.eval()
        episodes = run_episodes(vecs["train"], policy, task, seeds, group_ids, args.temperature, False, gen, clock)
        policy.model.train()
        t = time.perf_counter()
        batch = [tr for e in episodes for tr in e.turns]
        train_success.append(summarize(episodes)["success"])
        values = None
        if critic is not None:
            values = critic_values(critic, policy, [tr.observation for tr in batch], args.chunk)
        adv, targets = compute_advantages(algo, episodes, task.gamma, args.gae_lambda, values)
        policy_update(policy, opt, batch, adv, args, gen, critic, critic_opt, targets,
                      None if values is None else np.array(values))
        clock.update_s += time.perf_counter() - t
        if it % task.eval_interval(args.eval_every) == 0 or it == iters:
            record(it)
        if log is not None:
            last = curve[-1]
            log.progress(f"{ALGO_LABELS[algo]:<15} {task.key:<6} seed {seed}", it, iters,
                         f"train success {np.mean(train_success[-5:]):.2f} · eval {last['success']:.2f} (iter {last['iter']})")
    if log is not None:
        log.done()
    return {"curve": curve, "iters": iters, "seconds": time.time() - t0, "env_steps": clock.turns,
            "final": curve[-1], "clock": clock.as_dict()}
