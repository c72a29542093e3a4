"""verl's batch-level hook for its TransferQueue trainer: the entry point `verl.trainer.main_ppo` of
verl 0.9 (trainer v1), whose default manager is `AgentLoopManagerTQ`.

    actor_rollout_ref.rollout.agent.agent_loop_manager_class=gem_ts_verl.batch_tq.GemTsAgentLoopManagerTQ

(For the classic trainer, `verl.trainer.main_ppo_v0`, use `gem_ts_verl.batch.GemTsAgentLoopManager`.)

The TransferQueue worker does not return a batch: `generate_sequences` starts one background task
per prompt, each plays its `rollout.n` sessions, and every finished trajectory is put into the
TransferQueue, where the trainer collects them. `GemTsBatchAgentLoopWorkerTQ` keeps all of that and
adds one `LockstepBatch` per `generate_sequences` call, over every gem-ts session of that call (each
prompt's row `n` times): its envs are made and reset in one call per env config, and every turn goes
to the server in one step call per config. The batch is closed once the call's tasks have finished;
a failing session aborts it, so its siblings fail instead of waiting for it at the barrier.
"""
from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, List, Optional

import ray
from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.lockstep import LockstepBatch, current_batch
from verl.trainer.ppo.v1.agent_loop_tq import AgentLoopManagerTQ, AgentLoopWorkerTQ

from .batch import AbortsBatchOnFailure, gem_ts_rows


def _per_sample(batch: Any, key: str, count: int) -> List[Any]:
    """A TensorDict field as one plain value per sample (a NonTensorData is shared by all)."""
    from tensordict import NonTensorData, NonTensorStack

    if key not in batch.keys():
        return [None] * count
    value = batch.get(key)
    if isinstance(value, NonTensorStack):
        return [value[i].data for i in range(count)]
    if isinstance(value, NonTensorData):
        return [value.data] * count
    return [value[i] for i in range(count)]


class GemTsBatchAgentLoopWorkerTQ(AbortsBatchOnFailure, AgentLoopWorkerTQ.__ray_actor_class__):
    """verl's AgentLoopWorkerTQ, with each call's gem-ts sessions reset and stepped as one batch."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.gem_ts_calls: Counter = Counter()  # server calls of every closed batch, by op

    def _session_rows(self, batch: Any) -> List[EnvRow]:
        """Every gem-ts session the call will start: each prompt's row, once per sample of its group."""
        count = len(batch)
        validate = bool(_per_sample(batch, "validate", count)[0])
        names: List[Optional[str]] = _per_sample(batch, "agent_name", count)
        infos = _per_sample(batch, "extra_info", count)
        ns = _per_sample(batch, "__rollout_n__", count)
        rows: List[EnvRow] = []
        for i in range(count):
            rows += self._prompt_rows(names[i], infos[i], ns[i], validate)
        return rows

    def _prompt_rows(self, agent_name: Optional[str], extra_info: Any, n: Any, validate: bool) -> List[EnvRow]:
        """One prompt's gem-ts sessions: its row n times (verl's rule for n), or none for another agent."""
        rollout = self.config.actor_rollout_ref.rollout
        if n is None:
            n = rollout.val_kwargs.n if validate else rollout.n
        return gem_ts_rows([agent_name], [extra_info], rollout.agent.default_agent_loop) * int(n)

    async def generate_sequences(self, batch: Any) -> None:
        rows = self._session_rows(batch)
        if not rows:
            return await super().generate_sequences(batch)
        lockstep = LockstepBatch(rows, tokenizer=self.tokenizer)
        before = set(self.background_tasks)
        token = current_batch.set(lockstep)  # the prompts' tasks, created inside, inherit it
        try:
            await super().generate_sequences(batch)
        except BaseException as err:
            lockstep.abort(err)  # tasks already started must not wait for the ones never started
            raise
        finally:
            current_batch.reset(token)
            started = [t for t in self.background_tasks if t not in before]
            closer = asyncio.create_task(self._close_when_done(lockstep, started))
            self.background_tasks.add(closer)
            closer.add_done_callback(self.background_tasks.discard)

    async def _run_prompt(self, prompt: dict, sampling_params: dict, trajectory: dict, **kwargs: Any) -> None:
        sessions = self._prompt_rows(prompt.get("agent_name"), prompt.get("extra_info"), prompt.get("__rollout_n__"),
                                     bool(trajectory["validate"]))
        await super()._run_prompt(prompt, sampling_params, trajectory=trajectory, **kwargs)  # verl tags the uid on errors
        lockstep = current_batch.get()
        if sessions and lockstep is not None and lockstep.unstarted:
            # This prompt ended before its sessions joined (verl failed it first): the batch would
            # wait for them forever before its first reset.
            lockstep.abort(RuntimeError(f"prompt {prompt.get('uid')!r} ended before its gem-ts sessions started"))

    async def _close_when_done(self, lockstep: LockstepBatch, tasks: List["asyncio.Task[Any]"]) -> None:
        await asyncio.gather(*tasks, return_exceptions=True)
        await lockstep.close()
        self.gem_ts_calls.update(lockstep.calls)


class GemTsAgentLoopManagerTQ(AgentLoopManagerTQ):
    """verl's AgentLoopManagerTQ with `GemTsBatchAgentLoopWorkerTQ` workers."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)  # sets verl's worker class; the workers start in create()
        self.agent_loop_workers_class = ray.remote(GemTsBatchAgentLoopWorkerTQ)
