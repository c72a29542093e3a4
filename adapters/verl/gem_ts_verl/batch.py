"""verl's batch-level hook: an AgentLoopManager whose workers step their whole chunk of the batch
together, one gem-ts call per env config per turn.

    actor_rollout_ref.rollout.agent.agent_loop_manager_class=gem_ts_verl.batch.GemTsAgentLoopManager

verl's manager splits each `DataProto` batch into one chunk per `AgentLoopWorker` (placed
round-robin over the Ray nodes). `GemTsBatchAgentLoopWorker` keeps everything verl's worker does
(sampling parameters, tracing, token padding, reward placement, the loops of other agents) and adds a
`LockstepBatch` over the chunk's gem-ts rows: the envs are made and reset in one call per env config,
and each turn's actions of every live episode go to the server in one call per config (Arrow-encoded
once the batch is large). The gem_ts loop entry of agent_loops.yaml (endpoint / ray_pool / max_turns)
still applies. See the kit's `lockstep` module for the trade-off against the per-sample path.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import ray
from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.lockstep import LockstepBatch, current_batch
from hydra.utils import get_class
from verl.experimental.agent_loop.agent_loop import AgentLoopManager, AgentLoopWorker, _agent_loop_registry
from verl.protocol import DataProto

from .agent_loop import GemTsAgentLoop
from .data import ROW_KEY


def gem_ts_rows(agent_names: Sequence[Optional[str]], infos: Sequence[Any], default: str) -> List[EnvRow]:
    """The episodes of a batch's gem-ts samples, in order; the samples of other agents are skipped
    (verl runs them as usual), and a gem-ts sample without its row is refused before anything runs."""
    rows = []
    for i, (name, info) in enumerate(zip(agent_names, infos)):
        name = name or default
        target = (_agent_loop_registry.get(name) or {}).get("_target_")
        if not target or not issubclass(get_class(target), GemTsAgentLoop):
            continue
        if not info or ROW_KEY not in info:
            raise ValueError(
                f"sample {i} (agent {name!r}) has no extra_info['{ROW_KEY}']; "
                "write the prompt rows with gem_ts_verl.write_prompt_rows"
            )
        rows.append(EnvRow.from_value(info[ROW_KEY]))
    return rows


class AbortsBatchOnFailure:
    """A worker mixin: a sample that fails aborts its lockstep batch, because its siblings are
    waiting for it at the batch's barrier and would otherwise wait forever."""

    async def _run_agent_loop(self, *args: Any, **kwargs: Any):
        try:
            return await super()._run_agent_loop(*args, **kwargs)  # type: ignore[misc]
        except BaseException as err:
            lockstep = current_batch.get()
            if lockstep is not None:
                lockstep.abort(err)
            raise


class GemTsBatchAgentLoopWorker(AbortsBatchOnFailure, AgentLoopWorker):
    """verl's AgentLoopWorker, with the chunk's gem-ts episodes reset and stepped as one batch."""

    async def generate_sequences(self, batch: DataProto) -> DataProto:
        names = batch.non_tensor_batch.get("agent_name")
        infos = batch.non_tensor_batch.get("extra_info")
        count = len(batch)
        rows = gem_ts_rows(
            list(names) if names is not None else [None] * count,
            list(infos) if infos is not None else [None] * count,
            self.rollout_config.agent.default_agent_loop,
        )
        if not rows:
            return await super().generate_sequences(batch)
        lockstep = LockstepBatch(rows, tokenizer=self.tokenizer)
        token = current_batch.set(lockstep)  # the samples' tasks, created inside, inherit it
        try:
            output = await super().generate_sequences(batch)
        finally:
            current_batch.reset(token)
            await lockstep.close()
        output.meta_info["gem_ts_calls"] = dict(lockstep.calls)
        return output


class GemTsAgentLoopManager(AgentLoopManager):
    """verl's AgentLoopManager with `GemTsBatchAgentLoopWorker` workers (the config's `num_workers`)."""

    agent_loop_workers_class = ray.remote(GemTsBatchAgentLoopWorker)
