"""Running the grid (tasks × seeds × algorithms), in parallel worker processes when cores allow.

Two phases. First each (task, seed) gets its starting point: random play, a tokenizer, the warm
start, the random-action and warm-start evaluations. That does not depend on the algorithm, so it is
made once and cached on disk (<out>/cache, keyed by every setting it depends on), where a later run
with the same settings finds it. Then every (task, seed, algorithm) trains from it. Each worker process
keeps one gem-ts client and its vector envs per task for all its jobs, and uses --threads torch threads.

With one worker (or --model, whose weights are too big to copy around) everything runs in this process,
and the starting point stays in memory.
"""
from __future__ import annotations

import copy
import hashlib
import json
import multiprocessing as mp
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .advantages import ALGO_LABELS
from .hf_policy import HFPolicy
from .tasks import TASKS, Task
from .tiny_policy import TinyConfig, TinyPolicy, WordTokenizer
from .training import evaluate, train_one
from .warm_start import random_play_observations, warm_start

CACHE_VERSION = 1  # bump when the warm start's code changes what it produces

# Per worker process: gem-ts vector envs per task, and the policy objects of --model runs.
_VECS: dict[str, dict] = {}
_POLICIES: dict[tuple[str, int], object] = {}


@dataclass
class Prepared:
    """A (task, seed)'s starting point: its evaluations and where its weights are."""

    task: str
    seed: int
    meta: dict  # random_action, warm_start, warm_start_training, policy, vocabulary
    path: str | None  # the cached weights (tiny model), or None: kept in this process


def _device(args) -> torch.device:
    return torch.device(args.device or ("cuda" if args.model and torch.cuda.is_available() else "cpu"))


def task_vecs(task: Task, args) -> dict:
    import gem_ts as gem
    from gem_ts.wrappers import get_wrapper_fns

    if task.key not in _VECS:
        wrappers = get_wrapper_fns(task.wrappers) if task.wrappers else None
        _VECS[task.key] = {
            "train": gem.make_vec([task.env_id] * args.rollout_envs, wrappers=wrappers, **task.env_kwargs),
            "eval": gem.make_vec([task.env_id] * args.eval_episodes, wrappers=wrappers, **task.env_kwargs),
        }
    return _VECS[task.key]


def close_vecs() -> None:
    for vecs in _VECS.values():
        for v in vecs.values():
            if hasattr(v, "close"):
                v.close()
    _VECS.clear()


def _build_policy(args, task: Task, device: torch.device, vocabulary: list[str]):
    if args.model:
        return HFPolicy(args.model, args.max_new_tokens, args.context or 1024, device)
    tokenizer = WordTokenizer.from_vocabulary(vocabulary)
    cfg = TinyConfig(tokenizer.vocab_size, args.context or task.context, args.max_new_tokens, args.d_model,
                     args.n_layer, args.n_head)
    return TinyPolicy(cfg, tokenizer, device)


def cache_key(task: Task, seed: int, args) -> str:
    """Everything the starting point depends on."""
    keys = ("model", "context", "max_new_tokens", "d_model", "n_layer", "n_head", "sft_steps", "sft_batch", "sft_lr",
            "sft_lm_weight", "sft_prompts", "grad_clip", "eval_episodes", "rollout_envs", "greedy_eval")
    spec = {"version": CACHE_VERSION, "task": task.key, "env": task.env_id, "kwargs": task.env_kwargs,
            "wrappers": task.wrappers, "task_context": task.context, "seed": seed, **{k: getattr(args, k) for k in keys}}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]


def prepare(task_key: str, seed: int, args, cache_dir: Path | None) -> Prepared:
    """Builds (or finds in the cache) one (task, seed)'s warm-started policy and its baselines."""
    task = TASKS[task_key]
    path = cache_dir / f"{task_key}-seed{seed}-{cache_key(task, seed, args)}.pt" if cache_dir else None
    if path is not None and path.exists():
        saved = torch.load(path, weights_only=False)
        return Prepared(task_key, seed, {**saved["meta"], "cached": True}, str(path))
    vecs = task_vecs(task, args)
    device = _device(args)
    observations = random_play_observations(vecs["train"], task, args.sft_prompts, seed)
    torch.manual_seed(seed)
    vocabulary = WordTokenizer(observations).itos if not args.model else []
    policy = _build_policy(args, task, device, vocabulary)
    rng = np.random.default_rng(seed + 3)
    random_action = evaluate(vecs["eval"], None, task, args, seed, None, actor=lambda o: task.valid_action(rng, o))
    log = None if args.workers > 1 or args.quiet else args.log
    sft = warm_start(policy, task, observations, args, seed, log) if args.sft_steps > 0 else None
    policy.model.eval()
    warm = evaluate(vecs["eval"], policy, task, args, seed, torch.Generator().manual_seed(seed + 1))
    meta = {"random_action": random_action, "warm_start": warm, "warm_start_training": sft,
            "policy": policy.describe(), "vocabulary": vocabulary, "cached": False}
    if path is None:
        _POLICIES[(task_key, seed)] = (policy, copy.deepcopy(policy.model.state_dict()))
        return Prepared(task_key, seed, meta, None)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    torch.save({"meta": meta, "state": policy.model.state_dict()}, tmp)
    tmp.replace(path)  # atomic: a concurrent reader never sees half a file
    return Prepared(task_key, seed, meta, str(path))


def train(prep: Prepared, algo: str, args) -> dict:
    """One (task, seed, algorithm) run from the prepared starting point."""
    task = TASKS[prep.task]
    if prep.path is None:
        policy, state = _POLICIES[(prep.task, prep.seed)]
    else:
        saved = torch.load(prep.path, weights_only=False)
        policy = _build_policy(args, task, _device(args), saved["meta"]["vocabulary"])
        state = saved["state"]
    log = None if args.workers > 1 or args.quiet else args.log
    run = train_one(algo, task, task_vecs(task, args), state, prep.meta["warm_start"], policy, args, prep.seed, log)
    return {"task": prep.task, "seed": prep.seed, "algo": algo, **run}


def _init_worker(threads: int) -> None:
    if threads:
        torch.set_num_threads(threads)
    try:
        torch.set_num_interop_threads(1)  # the tiny model has nothing to run side by side
    except RuntimeError:  # already set, or work already started in this process (a second in-process run)
        pass


def _prepare_job(job):
    return prepare(*job)


def _train_job(job):
    return train(*job)


def run_grid(args, cache_dir: Path | None, on_prepared, on_trained) -> tuple[list[Prepared], list[dict]]:
    """Task by task, in --tasks order: every seed's starting point, then every (seed, algorithm) run.

    Task-major order means that a run cut short (a deadline, a loaded machine) leaves whole tasks with
    all their seeds behind, which is what a comparison needs. Within a task, PPO (the slowest) goes
    first, so the workers stay busy until the task's last job.
    """
    algos = sorted(args.algos, key=lambda a: a != "ppo")
    args_for_jobs = copy.copy(args)
    args_for_jobs.log = None  # not picklable; workers do not print progress
    preps: list[Prepared] = []
    runs: list[dict] = []
    if args.workers <= 1:
        _init_worker(args.threads)
        for t in args.tasks:
            for s in args.seeds:
                preps.append(prepare(t, s, args, cache_dir))
                on_prepared(preps[-1])
                for algo in algos:
                    runs.append(train(preps[-1], algo, args))
                    on_trained(runs[-1], preps, runs)
        return preps, runs
    ctx = mp.get_context("spawn")  # a fresh interpreter per worker: no forked torch or ZeroMQ state
    with ctx.Pool(args.workers, initializer=_init_worker, initargs=(args.threads,)) as pool:
        for t in args.tasks:
            task_preps, pending = [], []
            for prep in pool.imap_unordered(_prepare_job, [(t, s, args_for_jobs, cache_dir) for s in args.seeds]):
                task_preps.append(prep)
                on_prepared(prep)
                # Queued behind the preparations still waiting: a worker with no seed left to prepare
                # trains this one instead of idling until the last warm start is done.
                pending += [pool.apply_async(_train_job, ((prep, a, args_for_jobs),)) for a in algos]
            task_preps.sort(key=lambda p: p.seed)
            preps += task_preps
            while pending:  # report runs as they finish, in any order
                done = [r for r in pending if r.ready()]
                pending = [r for r in pending if r not in done]
                for r in done:
                    runs.append(r.get())
                    on_trained(runs[-1], preps, runs)
                if pending and not done:
                    time.sleep(0.2)
    return preps, runs


def describe_run(run: dict) -> str:
    f = run["final"]
    return (f"{ALGO_LABELS[run['algo']]:<15} {run['task']:<6} seed {run['seed']}: success {f['success']:.2f}, "
            f"return {f['return']:.3f} ({run['seconds']:.0f} s)")
