"""Vector envs served by gem-ts, with GEM's ``VectorEnv`` API (``gem_ts.make_vec``).

``step`` takes a list (one action per env) or a dict ``{env_index: action}`` that steps only those
envs; rewards and flags come back as numpy arrays, observations and infos as lists, in GEM's order.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import calls, gem_aliases
from .attributes import checked_indices, is_remote_name, per_env_values
from .calls import Actions, Seed, StepReturn
from .ops import Blocking, BlockingOps, Steps, owner_op, plan_op
from .session import Call

__all__ = ["Actions", "AsyncVectorEnv", "StepReturn", "SubEnv", "SyncVectorEnv", "VectorEnv", "VectorPlumbing", "make_vector"]


def _reset(
    vec: "VectorPlumbing", seed: Seed = None, indices: Optional[Sequence[int]] = None, **kwargs: Any
) -> Call[Tuple[List[str], List[Dict[str, Any]]]]:
    """GEM's reset: an int seed gives env i seed + i; ``env{i}_kwargs={...}`` are per-env options.

    ``indices`` (a gem-ts extra) resets only those envs and returns their rows in that order.
    """
    options = calls.split_reset_kwargs(kwargs, list(indices) if indices is not None else vec._all)
    pair: Call[Tuple[List[str], List[Dict[str, Any]]]] = calls.reset(
        vec.handle, seed=seed, options=options, indices=indices, decode=calls.reset_pair
    )
    return pair


def _step(vec: "VectorPlumbing", actions: Actions) -> Call[StepReturn]:
    """A list with one action per env, or ``{env_index: action}`` to step only those envs."""
    indices, acts = calls.actions_arg(actions, vec.num_envs, vec._all)
    step: Call[StepReturn] = calls.step(vec.handle, indices, acts, vec.client.session.inline_max_rows, calls.step_tuple)
    return step


def _sample(vec: "VectorPlumbing", indices: Optional[Sequence[int]] = None) -> Call[List[str]]:
    """One random action per env (or per env in ``indices``), drawn by each env."""
    return calls.sample(vec.handle, indices)


def _get_attr(vec: "VectorPlumbing", name: str, indices: Optional[Sequence[int]] = None) -> Call[Tuple[Any, ...]]:
    """Gymnasium's get_attr: the attribute ``name`` of every env (or of those in ``indices``)."""
    idx = None if indices is None else checked_indices(indices, vec.num_envs)
    call: Call[Any] = calls.get_attr(vec.handle, name, idx)
    values = call.decode
    call.decode = lambda h, b: tuple(values(h, b))
    return call


def _set_attr(vec: "VectorPlumbing", name: str, values: Any, indices: Optional[Sequence[int]] = None) -> Call[None]:
    """Gymnasium's set_attr: a list/tuple gives one value per env, any other value goes to all."""
    idx = list(range(vec.num_envs)) if indices is None else checked_indices(indices, vec.num_envs)
    each, vals = per_env_values(values, len(idx))
    return calls.set_attr(vec.handle, name, vals, each=each, indices=None if indices is None else idx)


def _close(vec: "VectorPlumbing") -> Steps[None]:
    if not vec._closed:
        vec._closed = True
        yield from calls.close_handle(vec.client.session, vec.handle)


class VectorPlumbing:
    """A served vector env, whichever client it came from: the make reply and the ops on its handle
    (they block with a ``Client`` and are awaited with an ``aio.AsyncClient``)."""

    def __init__(self, client: Any, info: Dict[str, Any]):
        self.client = self._runner = client
        self.handle = info["handle"]
        self.num_envs: int = info["num_envs"]
        self.env_ids: List[str] = list(info["env_ids"])
        self.autoreset_mode: str = info["autoreset_mode"]
        self.wrappers: List[str] = list(info["wrappers"])
        self._repr: List[str] = list(info["repr"])
        self._all = tuple(range(self.num_envs))  # immutable: the wire codec caches its Arrow form
        self._closed = False

    reset = owner_op(_reset)
    step = owner_op(_step)
    sample_random_actions = owner_op(_sample)
    get_attr = owner_op(_get_attr)
    set_attr = owner_op(_set_attr)
    close = plan_op(_close)

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return self.num_envs

    def __repr__(self) -> str:
        first = self._repr[0] if self._repr else "?"
        more = "" if len(set(self._repr)) <= 1 else ", …"
        return f"{type(self).__name__}({self.num_envs} × {first}{more}, autoreset_mode={self.autoreset_mode})"


class VectorEnv(VectorPlumbing, Blocking):
    client: BlockingOps

    @property
    def envs(self) -> List["SubEnv"]:
        """GEM's ``vec_env.envs``: sub-env ``i`` for its attributes (``vec_env.envs[0].answer``)."""
        return [SubEnv(self, i) for i in range(self.num_envs)]

    def __enter__(self) -> "VectorEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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


def make_vector(
    client: BlockingOps,
    env_ids: Union[str, Sequence[str]],
    wrappers: Optional[Sequence[Any]] = None,
    vec_kwargs: Optional[Sequence[Dict[str, Any]]] = None,
    async_mode: bool = False,
    seed: int = 0,
    *,
    num_envs: Optional[int] = None,
    autoreset_mode: Optional[str] = None,
    **kwargs: Any,
) -> VectorEnv:
    """GEM's make_vec: one env per id in ``env_ids`` (heterogeneous allowed), env i seeded seed + i.

    gem-ts extras: ``num_envs`` copies of a single id, ``autoreset_mode`` ('same_step', GEM's
    default; 'next_step'; 'disabled').
    """
    kwargs.pop("verbose", None)  # GEM's eval-env flag; per-step logging is for single envs
    env_ids, vec_kwargs, kwargs = _resolve_aliases(env_ids, vec_kwargs, kwargs)
    plan = calls.make_vec(client.session, env_ids, wrappers, vec_kwargs, async_mode, seed, num_envs, autoreset_mode, kwargs)
    return (AsyncVectorEnv if async_mode else SyncVectorEnv)(client, client.drive(plan))


def _resolve_aliases(
    env_ids: Union[str, Sequence[str]], vec_kwargs: Optional[Sequence[Dict[str, Any]]], kwargs: Dict[str, Any]
) -> "tuple[Union[str, Sequence[str]], Optional[Sequence[Dict[str, Any]]], Dict[str, Any]]":
    """Ids registered with GEM's entry-point strings become their gem-ts env and options."""
    if isinstance(env_ids, str):
        alias = gem_aliases.resolve(env_ids, kwargs)
        return (env_ids, vec_kwargs, kwargs) if alias is None else (alias[0], vec_kwargs, alias[1])
    if not isinstance(env_ids, (list, tuple)) or not any(isinstance(e, str) and e in gem_aliases.ALIASES for e in env_ids):
        return env_ids, vec_kwargs, kwargs
    ids, per_env = [], []
    for i, e in enumerate(env_ids):
        own = {**kwargs, **dict((vec_kwargs or [{}] * len(env_ids))[i] or {})}
        alias = gem_aliases.resolve(e, own)
        ids.append(e if alias is None else alias[0])
        per_env.append(own if alias is None else alias[1])
    return ids, per_env, {}
