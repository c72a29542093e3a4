"""GEM's ``gem.envs.reasoning_gym``: ``ReasoningGymEnv(name, size=500, seed=42)`` is gem-ts's ``rg:<name>``."""

from typing import Any, Dict, Optional, Sequence, Tuple

from ..client import Client, default_client
from ..env import ServerEnv


class ReasoningGymEnv(ServerEnv):
    """A reasoning-gym task (its Python package runs in a gem-ts worker)."""

    def __init__(self, name: str, size: int = 500, seed: int = 42, *, client: Optional[Client] = None,
                 wrappers: Sequence[Any] = (), **_: Any):  # fmt: skip
        env_id, options, env_seed = self.served_spec(name, size, seed)
        super().__init__(client or default_client(), env_id, options, wrappers, seed=env_seed)

    @classmethod
    def served_spec(cls, name: str = "", size: int = 500, seed: int = 42, **_: Any) -> Tuple[str, Dict[str, Any], Optional[int]]:
        if not isinstance(name, str) or not name:
            raise TypeError(f"ReasoningGymEnv: name must be a reasoning-gym task name such as 'leg_counting', not {name!r}")
        return f"rg:{name}", {"size": size}, seed


__all__ = ["ReasoningGymEnv"]
