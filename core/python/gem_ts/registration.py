"""GEM's module-level API: make, make_vec, register, print_envs (gem/envs/registration.py's names)."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Union

from . import calls, gem_aliases
from .client import Client, default_client
from .env import ServerEnv
from .python_envs import EntryPoint
from .vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv
from .wrappers.wrapper_factory import WrapperFn


def _client(client: Optional[Client], token: Optional[str]) -> Client:
    return client if client is not None else default_client(token)


def make(env_id: Any, *, client: Optional[Client] = None, token: Optional[str] = None, **kwargs: Any) -> ServerEnv:
    """One env by id; ``kwargs`` are the env's options (GEM's kwargs, e.g. ``max_turns=5``).

    ``env_id`` may also be another env's ``spec`` (a dict with ``id``, ``options``, ``wrappers``): the
    same env is made again, wrappers included; ``kwargs`` override its options.
    ``verbose=True`` (GEM's eval envs take it) logs every step of this env (logger ``gem_ts.env``).
    """
    if isinstance(env_id, Mapping) and isinstance(env_id.get("id"), str):
        spec = env_id
        options = {**dict(spec.get("options") or {}), **kwargs}
        env = make(spec["id"], client=client, token=token, **options)
        names = list(spec.get("wrappers") or [])
        if not names:
            return env
        bag = dict(spec.get("wrapperOptions") or {})  # one merged bag, as make sends it
        return env.with_wrappers([WrapperFn(n, bag if i == 0 else {}) for i, n in enumerate(names)])
    calls.env_id_arg(env_id)
    verbose = bool(kwargs.pop("verbose", False))
    seed = None
    alias = gem_aliases.resolve(env_id, kwargs)
    if alias is not None:
        env_id, kwargs, seed = alias
    env = ServerEnv(_client(client, token), env_id, kwargs, seed=seed)
    env.verbose = verbose
    return env


def make_vec(
    env_ids: Union[str, Sequence[str]],
    wrappers: Optional[Sequence[Any]] = None,
    vec_kwargs: Optional[Sequence[Dict[str, Any]]] = None,
    async_mode: bool = False,
    seed: int = 0,
    *,
    num_envs: Optional[int] = None,
    autoreset_mode: Optional[str] = None,
    client: Optional[Client] = None,
    token: Optional[str] = None,
    **kwargs: Any,
) -> VectorEnv:
    """GEM's make_vec: one env per id in ``env_ids`` (heterogeneous allowed), env i seeded seed + i.

    gem-ts extras: ``num_envs`` copies of a single id, ``autoreset_mode`` ('same_step', GEM's
    default; 'next_step'; 'disabled').
    """
    c = _client(client, token)
    kwargs.pop("verbose", None)  # GEM's eval-env flag; per-step logging is for single envs
    env_ids, vec_kwargs, kwargs = _resolve_aliases(env_ids, vec_kwargs, kwargs)
    plan = calls.make_vec(c.session, env_ids, wrappers, vec_kwargs, async_mode, seed, num_envs, autoreset_mode, kwargs)
    return (AsyncVectorEnv if async_mode else SyncVectorEnv)(c, c.drive(plan))


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


def register(
    env_id: str, entry_point: EntryPoint, *, client: Optional[Client] = None, description: Optional[str] = None, **kwargs: Any
) -> None:
    """Registers an env defined in Python (a class or factory following GEM's Env API).

    The id then works everywhere a built-in id does (make, make_vec, wrappers, autoreset); its resets
    and steps run in this process, called back by the server.
    """
    served = gem_aliases.gem_class(entry_point)
    if served is not None:
        # GEM's own env class: an alias of the gem-ts env it maps to, nothing runs in Python.
        gem_aliases.add(env_id, served, kwargs)
        return
    doc = description
    if doc is None and not isinstance(entry_point, str):
        doc = (getattr(entry_point, "__doc__", None) or "").strip().split("\n")[0] or None
    (client or default_client()).register(env_id, entry_point, description=doc, **kwargs)


def print_envs(filter: Optional[str] = None, *, client: Optional[Client] = None) -> None:
    """Prints every registered env id with its description and preset options."""
    envs = (client or default_client()).list_envs(filter, verbose=True)
    if not envs:
        print("No environments registered.")
        return
    print("Detailed Registered Environments:")
    for e in envs:
        where = " (Python)" if e.get("source") == "client" else ""
        print(f"  - {e['id']}{where}: {e['description']}")
        if e.get("defaults"):
            print(f"      options: {e['defaults']}")
