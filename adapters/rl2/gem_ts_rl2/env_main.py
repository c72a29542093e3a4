"""RL2 env module for the current main contract (Dec 2025 on): `rollout.env_path=<this file>`.

RL2 main loads the module on global rank 0 and awaits `generate(config, tokenizer, router_url,
sample)` for each sample. gem-ts envs own their prompts, so `generate` resets the env first, puts
its observation in `sample.sample["messages"]`, then hands the loop to RL2's own
`RL2.datasets.base_generate` with `env_step`. `env_step(sample)` plays the model's action and
returns RL2's `{"next_state", "done", "reward"}`; next_state continues the running text, so RL2
appends only the observation's tokens (action_mask 0). Partial rollouts (ABORTED samples) resume
without a new reset. Rows: `{"gem_ts": <EnvRow JSON>}` (gem_ts_rl2.write_prompt_rows(main=True)).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Optional

from gem_ts_rl2 import common


def _status_name(sample: Any) -> str:
    status = getattr(sample, "status", None)
    return getattr(status, "name", str(status)).upper()


async def env_step(sample: Any, tokenizer: Any = None) -> Dict[str, Any]:
    row = sample.sample
    glue = common.glue(tokenizer)
    episode = common.episode_of(row)
    observation, reward, done = await episode.step(common.strip_special(sample.action_text))
    if done:
        common.end(row)
        return {"next_state": None, "done": True, "reward": reward}
    # The model's tokens are already in the state; whether they end on the end-of-turn token is
    # known from the ids, even when the decoded text hides it.
    ended = glue.ends_turn(sample.state_dict["states"]) if getattr(sample, "state_dict", None) else None
    feedback = glue.feedback(sample.action_text, observation, ended=ended)
    return {"next_state": sample.state_text + sample.action_text + feedback, "done": False, "reward": reward}


async def generate(config: Any, tokenizer: Any, router_url: str, sample: Any, base_generate: Optional[Callable] = None) -> None:
    row = sample.sample
    if _status_name(sample) == "RUNNING" and common.EPISODE_KEY not in row:
        observation = await common.start(row)
        row["messages"] = common.glue(tokenizer).first_messages(observation)
    if base_generate is None:
        from RL2.datasets import base_generate  # type: ignore[no-redef]
    try:
        await base_generate(config, tokenizer, router_url, sample, env_step_fn=functools.partial(env_step, tokenizer=tokenizer))
    except BaseException:
        common.end(row)
        raise
