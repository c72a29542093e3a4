"""gem-ts ids in skyrl_gym's registry, so SkyRL rows name them as their `env_class`.

`gem_ts` (registered on import) plays the row's own `env_id` column; `register_envs(ids)` adds one
`gem_ts/<env id>` entry per id, bound to that env. Entry points are import strings, so the specs stay
JSON-serialisable (`EnvSpec.to_json`). The registry is per process: register in the process that runs
SkyRL's generator.
"""
from __future__ import annotations

import difflib
from typing import Iterable, List, Optional

import gem_ts
import skyrl_gym

GENERIC_ID = "gem_ts"
PREFIX = "gem_ts/"
ENTRY_POINT = "gem_ts_skyrl.env:GemTsTextEnv"


def _register_once(skyrl_id: str, env_id: Optional[str]) -> None:
    existing = skyrl_gym.registry.get(skyrl_id)
    if existing is not None:
        if existing.entry_point == ENTRY_POINT and existing.kwargs.get("env_id") == env_id:
            return  # registering the same id twice is harmless; skyrl_gym itself would refuse it
        raise skyrl_gym.error.RegistrationError(f"{skyrl_id!r} is already registered in skyrl_gym to {existing.entry_point}")
    skyrl_gym.register(id=skyrl_id, entry_point=ENTRY_POINT, kwargs={} if env_id is None else {"env_id": env_id})


def register_generic() -> str:
    """Registers `gem_ts`, the class whose rows say which gem-ts env they play."""
    _register_once(GENERIC_ID, None)
    return GENERIC_ID


def register_envs(env_ids: Optional[Iterable[str]] = None, *, client: Optional[gem_ts.Client] = None) -> List[str]:
    """Registers `gem_ts/<id>` for each gem-ts env id (every id the server has when None); returns the
    skyrl_gym ids. An id the server does not know is refused here, with the closest known ids."""
    if isinstance(env_ids, str):
        raise TypeError(f"env_ids must be a list of gem-ts env ids, not one string (did you mean [{env_ids!r}]?)")
    known = (client or gem_ts.default_client()).list_envs()
    wanted = list(known) if env_ids is None else list(env_ids)
    unknown = [i for i in wanted if i not in known]
    if unknown:
        hints = {i: difflib.get_close_matches(i, known, n=3) for i in unknown}
        detail = "; ".join(f"{i!r} (did you mean: {', '.join(h) or 'nothing close'})" for i, h in hints.items())
        raise ValueError(f"not gem-ts env ids: {detail}. List them with gem_ts.print_envs()")
    ids = []
    for env_id in wanted:
        _register_once(PREFIX + env_id, env_id)
        ids.append(PREFIX + env_id)
    return ids
