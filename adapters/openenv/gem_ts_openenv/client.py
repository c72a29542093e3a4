"""A typed OpenEnv client for gem-ts envs, as OpenEnv env packages ship one (an EnvClient subclass with
its Action, Observation and State models), for stacks that want typed results rather than
GenericEnvClient's dicts. Needs ``openenv`` (0.10)."""

from __future__ import annotations

from typing import Any, Dict, Optional

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.types import Action, Observation, State
from pydantic import ConfigDict, Field


class GemTsAction(Action):
    """A gem-ts text action: the model's reply as the env reads it."""

    message: str = Field(description="The action text")


class GemTsObservation(Observation):
    """gem-ts's observation text, with GEM's terminated / truncated; ``metadata`` is gem-ts's info."""

    text: str = Field(default="", description="gem-ts's observation")
    terminated: bool = False
    truncated: bool = False


class GemTsState(State):
    model_config = ConfigDict(extra="allow", validate_assignment=True)

    env_id: Optional[str] = None
    seed: Optional[int] = None
    total_reward: float = 0.0
    done: bool = False


class GemTsEnv(EnvClient[GemTsAction, GemTsObservation, GemTsState]):
    """``GemTsEnv(base_url=".../envs/<env id>")``; ``reset(seed=..., env_id=..., options=..., wrappers=...)``."""

    def _step_payload(self, action: GemTsAction) -> Dict[str, Any]:
        return action.model_dump(exclude_defaults=True)

    def _parse_result(self, payload: Dict[str, Any]) -> StepResult[GemTsObservation]:
        obs = dict(payload.get("observation") or {})
        observation = GemTsObservation(
            text=obs.get("text", ""),
            terminated=bool(obs.get("terminated", False)),
            truncated=bool(obs.get("truncated", False)),
            done=bool(payload.get("done", False)),
            reward=payload.get("reward"),
            metadata=payload.get("metadata") or obs.get("metadata") or {},
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=observation.done, metadata=payload.get("metadata"))

    def _parse_state(self, payload: Dict[str, Any]) -> GemTsState:
        return GemTsState(**payload)
