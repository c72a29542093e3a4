"""CPU stand-ins for the verl tests and `examples/train_verl.py --dry-run`.

Only the LLM server is stood in for (`ScriptedServerManager`, scripted token-in/token-out replies);
the rest is verl's own: its generated PPO config, RLHFDataset reading our parquet, AgentLoopWorker
loading our YAML and instantiating the loop through hydra, and its padding and reward placement.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Union

from gem_ts_adapter_kit.testing import ScriptedReplies, tiny_chat_tokenizer


class ScriptedServerManager:
    """Stands in for verl's `LLMServerClient.generate`: scripted replies as `TokenOutput`s."""

    def __init__(self, tokenizer: Any, replies: Sequence[str]):
        self.replies = ScriptedReplies(tokenizer, replies)
        self.request_ids: list = []

    async def generate(self, request_id: str, *, prompt_ids, sampling_params, **_: Any):
        from verl.workers.rollout.replica import TokenOutput

        self.request_ids.append(request_id)
        reply = self.replies.generate(prompt_ids, sampling_params.get("max_tokens"))
        stop = "completed" if reply.finish_reason == "stop" else None
        return TokenOutput(token_ids=reply.token_ids, log_probs=reply.logprobs, stop_reason=stop)


def write_tiny_model_dir(path: Union[str, Path], tokenizer: Any = None) -> Path:
    """A model directory verl can read offline: the in-process tokenizer and a tiny Qwen3 config
    (no weights: the rollout engine is stood in for)."""
    from gem_ts_adapter_kit.testing import tiny_qwen3_config

    path = Path(path)
    tokenizer = tokenizer or tiny_chat_tokenizer()
    tokenizer.save_pretrained(path)
    tiny_qwen3_config(tokenizer).save_pretrained(path)
    return path


def verl_config(
    model_path: Union[str, Path],
    train_file: Union[str, Path],
    agent_loop_config: Union[str, Path],
    *,
    prompt_length: int = 512,
    response_length: int = 512,
    overrides: Optional[Iterable[str]] = None,
):
    """verl's own generated PPO config with the keys a gem-ts run sets (plus dotlist overrides)."""
    import verl
    from omegaconf import OmegaConf

    cfg = OmegaConf.load(Path(verl.__file__).parent / "trainer/config/_generated_ppo_trainer.yaml")
    settings = [
        f"actor_rollout_ref.model.path={model_path}",
        "actor_rollout_ref.rollout.name=vllm",
        f"actor_rollout_ref.rollout.prompt_length={prompt_length}",
        f"actor_rollout_ref.rollout.response_length={response_length}",
        f"actor_rollout_ref.rollout.agent.agent_loop_config_path={agent_loop_config}",
        "actor_rollout_ref.rollout.agent.default_agent_loop=gem_ts",
        f"data.train_files={train_file}",
        f"data.max_prompt_length={prompt_length}",
        *(overrides or ()),
    ]
    return OmegaConf.merge(cfg, OmegaConf.from_dotlist(settings))


async def run_worker(config: Any, server_manager: Any, worker_class: Any = None):
    """One `generate_sequences` call of a real AgentLoopWorker (or `worker_class`, e.g. the batch
    hook's GemTsBatchAgentLoopWorker) over the whole training file."""
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from verl.protocol import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    worker = (worker_class or AgentLoopWorker)(config, server_manager)
    dataset = RLHFDataset(config.data.train_files, worker.tokenizer, config.data)
    batch = DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))
    return await worker.generate_sequences(batch)


def start_transfer_queue(num_cpus: int = 4) -> Any:
    """A real TransferQueue on a local Ray instance (its controller and one storage unit take a CPU
    each), as verl's v1 trainer (`verl.trainer.main_ppo`) sets it up; returns the module."""
    import ray
    import transfer_queue as tq
    from omegaconf import OmegaConf

    if not ray.is_initialized():
        # address="local": a fresh instance, never another job's cluster that happens to run here.
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    tq.init(OmegaConf.create({"backend": {"SimpleStorage": {"num_data_storage_units": 1}}}))
    return tq


def stop_transfer_queue() -> None:
    import ray
    import transfer_queue as tq

    tq.close()
    ray.shutdown()


def v1_trainer_batch(config: Any, tokenizer: Any):
    """(batch, uids): the training file as verl's v1 trainer hands it to `generate_sequences`: the
    dataloader's dict, a uid per prompt, `tu.get_tensordict`, and global_steps."""
    import uuid

    import numpy as np
    from verl.utils import tensordict_utils as tu
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    dataset = RLHFDataset(config.data.train_files, tokenizer, config.data)
    batch_dict = collate_fn([dataset[i] for i in range(len(dataset))])
    uids = [str(uuid.uuid4()) for _ in range(len(dataset))]
    batch_dict["uid"] = np.array(uids, dtype=object)
    batch = tu.get_tensordict(batch_dict)
    tu.assign_non_tensor_data(batch, "global_steps", 1)
    return batch, uids


async def run_worker_tq(config: Any, server_manager: Any, worker_class: Any = None, timeout_s: float = 300,
                        prepare: Any = None):
    """One `generate_sequences` call of verl's real AgentLoopWorkerTQ (or `worker_class`, e.g. the
    batch hook's GemTsBatchAgentLoopWorkerTQ) over the whole training file, with the batch built as
    the v1 trainer builds it (`v1_trainer_batch`, the prompts registered in the queue as pending).
    Needs `start_transfer_queue()`. `prepare(batch)`, if given, may add fields (e.g. `__rollout_n__`).

    Returns ({(row index, session): the trajectory's fields from the queue}, {row index: the uid's
    final status tag}, the worker). The queue's entries are cleared afterwards.
    """
    import asyncio

    import transfer_queue as tq
    from verl.trainer.ppo.v1.agent_loop_tq import AgentLoopWorkerTQ

    worker = (worker_class or AgentLoopWorkerTQ.__ray_actor_class__)(config, server_manager)
    batch, uids = v1_trainer_batch(config, worker.tokenizer)
    if prepare is not None:
        prepare(batch)
    tags = [{"is_prompt": True, "status": "pending", "global_steps": 1} for _ in uids]
    await tq.async_kv_batch_put(keys=uids, partition_id="train", tags=tags)

    async def generate() -> None:
        await worker.generate_sequences(batch)
        while worker.background_tasks:  # the trainer waits on the queue; here, on the worker's tasks
            await asyncio.sleep(0.05)

    await asyncio.wait_for(generate(), timeout_s)
    listed = (await tq.async_kv_list(partition_id="train"))["train"]
    n = max([config.actor_rollout_ref.rollout.n, *(batch["__rollout_n__"] if "__rollout_n__" in batch.keys() else [])])
    keys = [f"{u}_{s}_0" for u in uids for s in range(n) if f"{u}_{s}_0" in listed]
    trajectories = {}
    if keys:
        fields = await tq.async_kv_batch_get(keys=keys, partition_id="train")
        for j, key in enumerate(keys):
            uid, session, _ = key.rsplit("_", 2)
            trajectories[(uids.index(uid), int(session))] = {name: fields[name][j] for name in ("responses", "response_mask", "rm_scores", "num_turns")}
    status = {i: listed[u]["status"] for i, u in enumerate(uids)}
    await tq.async_kv_clear(keys=uids + keys, partition_id="train")
    return trajectories, status, worker
