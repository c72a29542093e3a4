"""GEM's module-level API: make, make_vec, register, print_envs (gem/envs/registration.py's names)."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Union

from . import calls, gem_aliases
from .client import Client, default_client
from .env import ServerEnv, make_env
from .python_envs import EntryPoint
from .vector import VectorEnv, make_vector


def _client(client: Optional[Client], token: Optional[str]) -> Client:
    return client if client is not None else default_client(token)


def make(env_id: Any, *, client: Optional[Client] = None, token: Optional[str] = None, **kwargs: Any) -> ServerEnv:
    """``env.make_env`` on ``client`` (the default client when None): GEM's make."""
    if not (isinstance(env_id, Mapping) and isinstance(env_id.get("id"), str)):
        calls.env_id_arg(env_id)  # before a default client (and its local server) is started for it
    return make_env(_client(client, token), env_id, **kwargs)


def make_vec(
    env_ids: Union[str, Sequence[str]],
    wrappers: Optional[Sequence[Any]] = None,
    vec_kwargs: Optional[Sequence[Dict[str, Any]]] = None,
    async_mode: bool = False,
    seed: int = 0,
    *,
    client: Optional[Client] = None,
    token: Optional[str] = None,
    **kwargs: Any,
) -> VectorEnv:
    """``vector.make_vector`` on ``client`` (the default client when None): GEM's make_vec, and its
    gem-ts extras ``num_envs`` and ``autoreset_mode``."""
    return make_vector(_client(client, token), env_ids, wrappers, vec_kwargs, async_mode, seed, **kwargs)


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
