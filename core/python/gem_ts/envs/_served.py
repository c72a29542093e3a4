"""GEM's env classes, constructed directly (``MathEnv(dataset=ds)``, ``GuessTheNumberEnv(max_turns=5)``).

Each class is a ``ServerEnv``: constructing one makes the matching gem-ts env on the server with the
GEM keyword arguments mapped to its options. What a GEM class takes and ignores (``**_``: a ``seed``
for games) is ignored here too; an argument GEM knows and we do not is an INVALID_OPTIONS error.
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Optional, Sequence, Tuple

from ..client import Client, default_client
from ..env import ServerEnv


class ServedEnvClass(ServerEnv):
    """A GEM env class backed by the gem-ts env ``ENV_ID``."""

    #: The gem-ts env id this class makes.
    ENV_ID: ClassVar[str] = ""
    #: GEM's constructor parameters in order (positional arguments map onto them) with its defaults.
    GEM_PARAMS: ClassVar[Tuple[Tuple[str, Any], ...]] = ()
    #: GEM draws a random configuration per reset when one of these is None: our `random` option.
    RANDOM_WHEN_NONE: ClassVar[Tuple[str, ...]] = ()
    #: Arguments GEM accepts that gem-ts has no use for.
    IGNORED: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, *args: Any, client: Optional[Client] = None, wrappers: Sequence[Any] = (), **kwargs: Any):
        env_id, options, seed = self.served_spec(*args, **kwargs)
        super().__init__(client or default_client(), env_id, options, wrappers, seed=seed)

    @classmethod
    def served_spec(cls, *args: Any, **kwargs: Any) -> Tuple[str, Dict[str, Any], Optional[int]]:
        """(gem-ts env id, options, seed) for GEM's constructor arguments; ``register`` uses it too."""
        names = [n for n, _ in cls.GEM_PARAMS]
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes at most {len(names)} positional arguments ({len(args)} given)")
        given: Dict[str, Any] = {**dict(cls.GEM_PARAMS), **dict(zip(names, args)), **kwargs}
        seed = given.pop("seed", None)
        return cls.ENV_ID, cls.map_options(given), None if "seed" in cls.IGNORED else seed

    @classmethod
    def map_options(cls, given: Dict[str, Any]) -> Dict[str, Any]:
        """GEM's keyword arguments as gem-ts options."""
        options = {k: v for k, v in given.items() if k not in cls.IGNORED}
        if cls.RANDOM_WHEN_NONE and any(options.get(k, 0) is None for k in cls.RANDOM_WHEN_NONE):
            options = {k: v for k, v in options.items() if v is not None}
            options["random"] = True
        return options


class DatasetEnvClass(ServedEnvClass):
    """GEM's dataset envs: an empty ``dataset_name`` or a None argument means 'not given'."""

    @classmethod
    def map_options(cls, given: Dict[str, Any]) -> Dict[str, Any]:
        return {k: v for k, v in super().map_options(given).items() if v is not None and v != ""}
