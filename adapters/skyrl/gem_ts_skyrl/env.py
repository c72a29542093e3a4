"""A gem-ts env as a skyrl_gym `BaseTextEnv`: SkyRL's generator makes, inits, steps and closes it.

SkyRL (skyrl-gym 0.4) makes one env per trajectory with `skyrl_gym.make(env_class, env_config=...,
extras=...)`, where `extras` holds the dataset row's columns other than `prompt` and `env_class`, and
the generator sets `extras["max_turns"]` from its own config. `init(prompt)` returns the chat the
model sees first; each `step(text)` returns the messages to append, the turn's reward and `done`.

Here the row's `env_id` / `seed` / `options` / `wrappers` columns pick the gem-ts episode (as in every
gem-ts adapter), the env's first observation becomes the first user message, each later observation
the next user message, and the reward is gem-ts's own for that step.
"""
from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional

import gem_ts
from gem_ts_adapter_kit import EnvRow, RowError, parse_wrappers
from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput, ConversationType

ROW_KEYS = ("env_id", "seed", "options", "wrappers")


def _config_value(env_config: Any, key: str) -> Any:
    """Reads a key from SkyRL's per-env config (an omegaconf DictConfig, a dict, or None)."""
    if env_config is None:
        return None
    getter = getattr(env_config, "get", None)
    value = getter(key) if callable(getter) else getattr(env_config, key, None)
    if value is not None and hasattr(value, "items") and not isinstance(value, dict):
        value = {k: value[k] for k in value}  # DictConfig -> dict (omegaconf only where installed)
    return value


def episode_row(extras: Mapping[str, Any], env_config: Any = None, env_id: Optional[str] = None) -> EnvRow:
    """The gem-ts episode a SkyRL trajectory plays.

    Precedence: the row's own columns (`extras`, also inside `extras["extra_info"]`, SkyRL's usual
    place for per-row data), then the env's config (`skyrl_gym.<env_class>` in SkyRL's config), then
    the id this class was registered under. Options from the config and the row are merged, the row's
    winning.
    """
    if not isinstance(extras, Mapping):
        raise RowError(f"extras must be a mapping of the dataset row's columns, got {type(extras).__name__}")
    nested = extras.get("extra_info")
    fields: Dict[str, Any] = {k: nested[k] for k in ROW_KEYS if isinstance(nested, Mapping) and nested.get(k) is not None}
    fields.update({k: extras[k] for k in ROW_KEYS if extras.get(k) is not None})
    if env_id is not None and fields.get("env_id") not in (None, env_id):
        raise RowError(
            f"this env class plays {env_id!r} but the row asks for env_id {fields['env_id']!r}; "
            "use env_class 'gem_ts' for rows that name their own env_id"
        )
    fields.setdefault("env_id", _config_value(env_config, "env_id") or env_id)
    if fields["env_id"] is None:
        raise RowError("no gem-ts env id: give the row an env_id column, or use an env_class registered as 'gem_ts/<env id>'")
    if "seed" not in fields:
        raise RowError(
            f"the row for {fields['env_id']!r} has no seed column: every gem-ts episode is picked by (env_id, seed); "
            "add one (gem_ts_adapter_kit.seeded_rows makes such rows)"
        )
    defaults = _config_value(env_config, "options") or {}
    row = EnvRow.from_value(fields)
    wrappers = row.wrappers or parse_wrappers(_config_value(env_config, "wrappers"))
    return EnvRow(row.env_id, row.seed, {**dict(defaults), **row.options}, wrappers)


class GemTsTextEnv(BaseTextEnv):
    """One gem-ts episode per instance, as SkyRL uses its envs (made per trajectory, closed after it)."""

    #: The gem-ts env id this class is bound to (set by `register_envs`); None for the generic class.
    ENV_ID: Optional[str] = None

    def __init__(self, env_config: Any = None, extras: Optional[Mapping[str, Any]] = None, env_id: Optional[str] = None):
        super().__init__()
        extras = {} if extras is None else extras
        self.row = episode_row(extras, env_config, env_id or self.ENV_ID)
        max_turns = extras.get("max_turns")
        # SkyRL's generator writes its max_turns here; without it the gem-ts env alone ends the episode.
        self.max_turns = int(max_turns) if max_turns is not None else 0
        if self.max_turns < 0:
            raise ValueError(f"max_turns must be >= 0 (0: no limit), got {max_turns!r}")
        # Made here, not in init(): an unknown id or a bad option fails at skyrl_gym.make, naming the row.
        env = gem_ts.make(self.row.env_id, **self.row.options)
        if self.row.wrappers:
            env = env.with_wrappers(gem_ts.wrappers.get_wrapper_fns(",".join(self.row.wrappers)))
        self.env: Any = env  # None once closed
        self.rewards: List[float] = []
        self.done = False
        self.terminated = False
        self.truncated = False

    def init(self, prompt: Optional[ConversationType] = None) -> tuple:
        """The dataset prompt's system messages, then the env's first observation as the user message.

        Other messages of the dataset prompt are dropped: the gem-ts env owns the task text.
        """
        observation, info = self.env.reset(seed=self.row.seed)
        self.turns, self.rewards, self.done = 0, [], False
        self.terminated = self.truncated = False
        system = [dict(m) for m in (prompt or []) if isinstance(m, Mapping) and m.get("role") == "system"]
        return system + [{"role": "user", "content": observation}], {"env_id": self.row.env_id, "seed": self.row.seed, **info}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        if self.done:
            raise RuntimeError(f"the {self.row.env_id} episode (seed {self.row.seed}) is over; SkyRL makes a new env per trajectory")
        if not isinstance(action, str):
            raise TypeError(f"action must be the model's text, got {type(action).__name__}")
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.turns += 1
        self.rewards.append(float(reward))
        self.terminated, self.truncated = bool(terminated), bool(truncated)
        cut = self.max_turns > 0 and self.turns >= self.max_turns and not (terminated or truncated)
        self.done = self.terminated or self.truncated or cut
        metadata = {**info, "observation": observation, "terminated": self.terminated,
                    "truncated": self.truncated or cut, "turns": self.turns}  # fmt: skip
        observations = [] if self.done else [{"role": "user", "content": observation}]
        return BaseTextEnvStepOutput(observations=observations, reward=float(reward), done=self.done, metadata=metadata)

    def get_metrics(self) -> Dict[str, Any]:
        return {"steps": self.turns, "return": float(sum(self.rewards)), "terminated": int(self.terminated)}

    def close(self) -> None:
        env, self.env = getattr(self, "env", None), None
        if env is not None:
            env.close()

    def __str__(self) -> str:
        return f"GemTsTextEnv({self.row.env_id}, seed={self.row.seed}, options={json.dumps(self.row.options, sort_keys=True)})"
