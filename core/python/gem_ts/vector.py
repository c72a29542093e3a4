"""Vector envs served by gem-ts, with GEM's ``VectorEnv`` API (``gem_ts.make_vec``).

``step`` takes a list (one action per env) or a dict ``{env_index: action}`` that steps only those
envs; rewards and flags come back as numpy arrays, observations and infos as lists, in GEM's order.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import calls
from .attributes import checked_indices, is_remote_name, per_env_values
from .calls import Actions, Seed, StepReturn
from .client import Client

__all__ = ["Actions", "AsyncVectorEnv", "StepReturn", "SubEnv", "SyncVectorEnv", "VectorEnv"]


class VectorEnv:
    def __init__(self, client: Client, info: Dict[str, Any]):
        self.client = client
        self.handle = info["handle"]
        self.num_envs: int = info["num_envs"]
        self.env_ids: List[str] = list(info["env_ids"])
        self.autoreset_mode: str = info["autoreset_mode"]
        self.wrappers: List[str] = list(info["wrappers"])
        self._repr: List[str] = list(info["repr"])
        self._all = tuple(range(self.num_envs))  # immutable: the wire codec caches its Arrow form
        self._closed = False

    def reset(self, seed: Seed = None, indices: Optional[Sequence[int]] = None, **kwargs: Any) -> Tuple[List[str], List[Dict[str, Any]]]:
        """GEM's reset: an int seed gives env i seed + i; ``env{i}_kwargs={...}`` are per-env options.

        ``indices`` (a gem-ts extra) resets only those envs and returns their rows in that order.
        """
        options = calls.split_reset_kwargs(kwargs, list(indices) if indices is not None else self._all)
        rows = self.client.run(calls.reset(self.handle, seed=seed, options=options, indices=indices))
        return rows.observations, rows.infos

    def step(self, actions: Actions) -> StepReturn:
        indices, acts = calls.actions_arg(actions, self.num_envs, self._all)
        rows = self.client.run(calls.step(self.handle, indices, acts, self.client.session.inline_max_rows))
        return rows.observations, rows.rewards, rows.terminated, rows.truncated, rows.infos

    def sample_random_actions(self, indices: Optional[Sequence[int]] = None) -> List[str]:
        """One random action per env (or per env in ``indices``), drawn by each env."""
        return self.client.run(calls.sample(self.handle, indices))

    def get_attr(self, name: str, indices: Optional[Sequence[int]] = None) -> Tuple[Any, ...]:
        """Gymnasium's get_attr: the attribute ``name`` of every env (or of those in ``indices``)."""
        idx = None if indices is None else checked_indices(indices, self.num_envs)
        values: List[Any] = self.client.run(calls.get_attr(self.handle, name, idx))
        return tuple(values)

    def set_attr(self, name: str, values: Any, indices: Optional[Sequence[int]] = None) -> None:
        """Gymnasium's set_attr: a list/tuple gives one value per env, any other value goes to all."""
        idx = list(range(self.num_envs)) if indices is None else checked_indices(indices, self.num_envs)
        each, vals = per_env_values(values, len(idx))
        self.client.run(calls.set_attr(self.handle, name, vals, each=each, indices=None if indices is None else idx))

    @property
    def envs(self) -> List["SubEnv"]:
        """GEM's ``vec_env.envs``: sub-env ``i`` for its attributes (``vec_env.envs[0].answer``)."""
        return [SubEnv(self, i) for i in range(self.num_envs)]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.client.close_handle(self.handle)

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return self.num_envs

    def __enter__(self) -> "VectorEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        first = self._repr[0] if self._repr else "?"
        more = "" if len(set(self._repr)) <= 1 else ", …"
        return f"{type(self).__name__}({self.num_envs} × {first}{more}, autoreset_mode={self.autoreset_mode})"


class SubEnv:
    """One env of a vector env, as ``vec_env.envs[i]``: its attributes read and write on the server.

    It steps with its vector env (``vec_env.step({i: action})``), so it has no reset/step of its own.
    """

    def __init__(self, vec: VectorEnv, index: int):
        object.__setattr__(self, "_vec", vec)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "env_id", vec.env_ids[index])

    def get_attr(self, name: str) -> Any:
        return self._vec.get_attr(name, [self.index])[0]

    def set_attr(self, name: str, value: Any) -> None:
        self._vec.set_attr(name, [value], [self.index])

    def sample_random_action(self) -> str:
        return self._vec.sample_random_actions([self.index])[0]

    @property
    def unwrapped(self) -> "SubEnv":
        return self

    def __getattr__(self, name: str) -> Any:
        if not is_remote_name(name):
            raise AttributeError(f"'SubEnv' object has no attribute {name!r}")
        return self.get_attr(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if not is_remote_name(name) or hasattr(type(self), name):
            raise AttributeError(f"cannot set {name!r} on a sub-env")
        self.set_attr(name, value)

    def __repr__(self) -> str:
        return self._vec._repr[self.index]


class SyncVectorEnv(VectorEnv):
    """Sub-envs step one after another on the server (GEM's SyncVectorEnv)."""


class AsyncVectorEnv(VectorEnv):
    """Sub-envs without a fast path (tools, workers) step concurrently on the server (GEM's AsyncVectorEnv)."""
