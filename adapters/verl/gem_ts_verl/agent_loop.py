"""verl 0.9 `AgentLoopBase` that plays one gem-ts episode per sample.

verl instantiates the loop once per sample (from the YAML entry in `agent_loops.yaml`) inside its
AgentLoopWorker and awaits `run`. Tokenization goes through verl's Continuous Token builder, the same
path as its own tool loop: the env's first observation becomes the user message, each model turn is
merged token-in/token-out, each observation is merged as a new user message (mask 0). The episode's
summed reward is `reward_score` (verl puts it on the last response token); per-turn rewards go to
`extra_fields["turn_scores"]`.

Under verl's batch-level hook (`gem_ts_verl.batch.GemTsAgentLoopManager`) the same loop runs, but its
episode is one of the worker's lockstep batch: reset with the whole batch, stepped with it.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional
from uuid import uuid4

from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.lockstep import current_batch
from gem_ts_adapter_kit.sessions import Episode, EpisodeRecord, leases_for_loop
from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput
from verl.utils.profiler import simple_timer

from .data import ROW_KEY


class GemTsAgentLoop(AgentLoopBase):
    """Extra YAML keys (all optional): `endpoint` (else GEM_TS_ENDPOINT / a local server), or
    `ray_pool` (the name of a `gem_ts.ray.EnvServerPool`: the server on this worker's Ray node, with the
    pool's token), `max_turns` (model turns per episode), `block_size` (sub-envs per shared server handle)."""

    def __init__(
        self,
        *args: Any,
        endpoint: Optional[str] = None,
        ray_pool: Optional[str] = None,
        max_turns: Optional[int] = None,
        block_size: int = 64,
        **kwargs: Any,
    ):
        kwargs.pop("name", None)  # the YAML entry's own name is passed through by hydra
        super().__init__(*args, **kwargs)
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"max_turns must be >= 1, got {max_turns}")
        if ray_pool and endpoint:
            raise ValueError(f"give either endpoint ({endpoint}) or ray_pool ({ray_pool}), not both")
        self.endpoint, self.ray_pool = endpoint, ray_pool
        self.max_turns = max_turns
        self.block_size = block_size
        self.response_length = self.rollout_config.response_length

    async def run(self, sampling_params: Dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        extra_info = kwargs.get("extra_info") or {}
        if ROW_KEY not in extra_info:
            raise ValueError(
                f"extra_info has no '{ROW_KEY}' entry (keys: {sorted(extra_info)}); "
                "write the prompt rows with gem_ts_verl.write_prompt_rows"
            )
        row = EnvRow.from_value(extra_info[ROW_KEY])
        leases = await leases_for_loop(self.endpoint, self.block_size, self.tokenizer, ray_pool=self.ray_pool)
        lockstep = current_batch.get()  # set by GemTsBatchAgentLoopWorker (the batch-level hook)
        episode: EpisodeRecord
        if lockstep is not None:
            episode, observation = await lockstep.start(row, leases.client)
        else:
            episode, observation = await Episode.start(row, leases)
        # System messages of the dataset row stay in front; the env supplies the user turn.
        messages: List[Dict[str, Any]] = [m for m in kwargs.get("raw_prompt", []) if m.get("role") == "system"]
        messages.append({"role": "user", "content": observation})
        metrics: Dict[str, Any] = {}
        try:
            prompt_ids = await self.ct_build_initial_tokens(messages)
            runtime_ids, mask, logprobs = await self._play(episode, messages, prompt_ids, sampling_params, metrics)
        finally:
            episode.finish()

        response_ids = runtime_ids[len(runtime_ids) - len(mask):] if mask else []
        prompt_ids = runtime_ids[: len(runtime_ids) - len(mask)]
        n = self.response_length
        output = AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids[:n],
            response_mask=mask[:n],
            response_logprobs=logprobs[:n] if logprobs else None,
            reward_score=episode.total_reward,
            num_turns=2 * episode.turns + 1,
            metrics=metrics,
            extra_fields={},
        )
        output.extra_fields.update(
            {"turn_scores": list(episode.rewards), "tool_rewards": [], "env_id": row.env_id, "env_seed": row.seed}
        )
        return output

    async def _play(self, episode: EpisodeRecord, messages, runtime_ids, sampling_params, metrics):
        mask: List[int] = []
        logprobs: List[float] = []
        request_id = uuid4().hex  # one id for every turn: sticky routing reuses the prefix cache
        turns = 0
        while True:
            with simple_timer("generate_sequences", metrics):
                out = await self.server_manager.generate(
                    request_id=request_id, prompt_ids=runtime_ids, sampling_params=sampling_params
                )
            preempted = out.num_preempted if out.num_preempted is not None else 0
            metrics["num_preempted"] = metrics.get("num_preempted", 0) + preempted
            merged, mask, new_logprobs = await self.ct_merge_assistant_token(
                runtime_ids,
                out.token_ids,
                mask,
                logprobs if (logprobs or out.log_probs) else None,
                assistant_logprobs=out.log_probs or None,
            )
            runtime_ids = merged.token_ids
            logprobs = new_logprobs or []
            turns += 1
            if len(mask) >= self.response_length or out.stop_reason == "aborted":
                return runtime_ids, mask, logprobs  # out of budget: the env never sees a cut action
            action = self.tokenizer.decode(out.token_ids, skip_special_tokens=True)
            messages.append({"role": "assistant", "content": action})
            observation, _, done = await episode.step(action)
            if done or (self.max_turns is not None and turns >= self.max_turns):
                return runtime_ids, mask, logprobs
            previous = list(messages)
            messages.append({"role": "user", "content": observation})
            merged, new_mask, new_logprobs = await self.ct_merge_context_msg(
                previous, messages, runtime_ids, mask, logprobs or None
            )
            if len(new_mask) >= self.response_length:
                return runtime_ids, mask, logprobs  # no room for the observation and another turn
            runtime_ids, mask = merged.token_ids, new_mask
            if logprobs:
                logprobs = new_logprobs or []
