"""GEM's entry-point strings of built-in envs (``register("my-math", "gem.envs.math_env:MathEnv", ...)``).

GEM registers an id as "import this class, call it with these kwargs". For GEM's own classes the
class is ours (``gem_ts.envs.*``), served by gem-ts: the id becomes a client-side alias of the built-in
gem-ts env with the kwargs mapped to its options, so ``make``/``make_vec`` of it make that env on the
server and nothing steps in Python.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, Optional, Tuple

#: id -> (class, kwargs) of each alias registered in this process.
ALIASES: Dict[str, Tuple[Any, Dict[str, Any]]] = {}


def gem_class(entry_point: Any) -> Optional[Any]:
    """The gem_ts class an entry-point string of GEM (``gem.envs.…:Cls``) or of gem_ts names, else None."""
    if not isinstance(entry_point, str) or ":" not in entry_point:
        return None
    module, _, name = entry_point.partition(":")
    if module == "gem" or module.startswith("gem."):
        ours = "gem_ts" + module[len("gem") :]
    elif module.startswith("gem_ts.envs."):
        ours = module
    else:
        return None
    try:
        cls = getattr(importlib.import_module(ours), name)
    except (ImportError, AttributeError):
        raise ValueError(
            f"register: GEM's {entry_point!r} has no gem-ts counterpart; see docs/gem-compatibility.md for the env classes gem_ts serves"
        ) from None
    if not hasattr(cls, "served_spec"):
        return None  # a Python class of ours (e.g. a multi-agent env): registered as a Python env
    return cls


def add(env_id: str, cls: Any, kwargs: Dict[str, Any]) -> None:
    cls.served_spec(**kwargs)  # a bad argument fails now, as GEM's register would at make time
    ALIASES[env_id] = (cls, dict(kwargs))


def resolve(env_id: str, kwargs: Dict[str, Any]) -> Optional[Tuple[str, Dict[str, Any], Optional[int]]]:
    """(gem-ts id, options, seed) of an alias made with extra ``kwargs``, or None for other ids."""
    found = ALIASES.get(env_id) if isinstance(env_id, str) else None
    if found is None:
        return None
    cls, registered = found
    spec: Tuple[str, Dict[str, Any], Optional[int]] = cls.served_spec(**{**registered, **kwargs})
    return spec
