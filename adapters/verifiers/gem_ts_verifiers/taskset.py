"""gem-ts envs as a verifiers 0.4 (`verifiers.v1`) taskset: seeded episodes, gem-ts playing the user.

verifiers 0.4 loads a taskset package by id (`--env.taskset.id gem_ts_verifiers`): the package exports
one `vf.Taskset` and one `vf.Env` via `__all__`. Each task is one (env id, seed) episode; the env's
`run()` resets the gem-ts env, hands the model the first observation, sends each reply to gem-ts and
returns the next observation as the next user turn until the episode ends. The summed gem-ts reward
is the episode's reward.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List

import gem_ts
import verifiers.v1 as vf
from gem_ts_adapter_kit import EnvRow


class GemTsTasksetConfig(vf.TasksetConfig):
    env_id: str = "game:GuessTheNumber-v0-easy"
    """The gem-ts env id every task plays."""
    options: Dict[str, Any] = {}
    """gem-ts make options (JSON-able)."""
    wrappers: List[str] = []
    """gem-ts wrapper names, e.g. ["python_tool"]."""
    first_seed: int = 0
    num_tasks: int = 0
    """How many seeds (first_seed, first_seed + 1, ...); 0: an endless stream."""
    system_prompt: str | None = None


class GemTsData(vf.TaskData):
    info: dict
    """The gem-ts episode row (env_id, seed, options, wrappers)."""


class GemTsTask(vf.Task[GemTsData, vf.State, vf.TaskConfig]):
    pass


def make_env(row: EnvRow) -> Any:
    env = gem_ts.make(row.env_id, **row.options)
    if row.wrappers:
        env = env.with_wrappers(gem_ts.wrappers.get_wrapper_fns(",".join(row.wrappers)))
    return env


class GemTsTaskset(vf.Taskset[GemTsTask, GemTsTasksetConfig]):
    INFINITE = True

    def __init__(self, config: GemTsTasksetConfig) -> None:
        super().__init__(config)
        if config.num_tasks < 0:
            raise ValueError(f"num_tasks must be >= 0 (0: endless), got {config.num_tasks}")
        # Made once up front: an unknown env id or option fails at load, not mid-evaluation.
        self._probe_row = EnvRow(config.env_id, config.first_seed, dict(config.options), list(config.wrappers))
        self._probe = make_env(self._probe_row)
        self._bounded = config.num_tasks > 0

    def load(self) -> Iterator[GemTsTask]:
        seed = self.config.first_seed
        while self.config.num_tasks == 0 or seed < self.config.first_seed + self.config.num_tasks:
            row = EnvRow(self.config.env_id, seed, dict(self.config.options), list(self.config.wrappers))
            first, _ = self._probe.reset(seed=seed)
            yield GemTsTask(
                GemTsData(name=f"{row.env_id}#{seed}", prompt=first, system_prompt=self.config.system_prompt,
                          info=json.loads(row.to_json())),  # fmt: skip
                self.config.task,
            )
            seed += 1


class GemTsEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class GemTsEnv(vf.Env[GemTsEnvConfig]):
    async def run(self, task: Any, agents: Any) -> None:
        row = EnvRow.from_value(task.data.info)
        env = make_env(row)
        rewards: List[float] = []
        steps = 0
        try:
            env.reset(seed=row.seed)  # the same first observation the task's prompt carries
            async with agents.player.interaction(task) as interaction:
                segment = await interaction.turn()
                while not segment.terminated:
                    observation, reward, terminated, truncated, _ = env.step(segment.last_reply)
                    steps += 1
                    rewards.append(float(reward))
                    if terminated or truncated:
                        break
                    segment = await interaction.turn(observation)
            trace = interaction.trace
            trace.record_reward("gem_ts_return", float(sum(rewards)), 1.0)
            trace.info["gem_ts_steps"] = steps
            trace.info["gem_ts_rewards"] = rewards
        finally:
            env.close()


def load_environment(env_id: str, *, num_tasks: int = 0, first_seed: int = 0, wrappers: Any = (),
                     system_prompt: str | None = None, **options: Any) -> Any:  # fmt: skip
    """A `vf.Env` (built by verifiers' own loader) playing `env_id` with gem-ts `options`.

    The player is a plain chat loop (verifiers' `null` harness) in the local subprocess runtime: the
    model runs no code of its own, gem-ts's tool wrappers run tools. Override both through vf's config
    (`GemTsEnvConfig(player=...)`) for other harnesses.
    """
    from verifiers.v1.utils.loaders import load_environment as vf_load_environment

    config = GemTsEnvConfig(
        taskset={"id": "gem_ts_verifiers", "env_id": env_id, "options": options, "wrappers": list(wrappers),
                 "first_seed": first_seed, "num_tasks": num_tasks, "system_prompt": system_prompt},
        player={"harness": {"id": "null"}, "runtime": {"type": "subprocess"}},
    )  # fmt: skip
    return vf_load_environment(config)
