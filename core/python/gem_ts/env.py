"""A single env served by gem-ts, with GEM's ``Env`` API (``gem_ts.make``)."""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import calls, gem_aliases
from .attributes import is_remote_name
from .calls import ResetOne, StepOne
from .core import Env
from .ops import BlockingOps
from .wrappers.wrapper_factory import WrapperFn

_log = logging.getLogger("gem_ts.env")


def _log_step(env_id: str, action: str, result: StepOne) -> None:
    """``verbose=True``: each step on the ``gem_ts.env`` logger, printed when logging is not set up."""
    text = f"[{env_id}] action={action!r:.200} reward={result[1]} terminated={result[2]} truncated={result[3]} info={result[4]}\nobservation: {result[0]:.500}"
    if _log.hasHandlers():
        _log.info(text)
    else:
        print(text)


class ServerEnv(Env):
    """One env on the server (a handle with one env, autoreset disabled, as GEM's make gives).

    Attributes it does not hold itself are the env's declared attributes on the server (GEM's
    ``env.answer``, ``env.max_turns = 5``; see ``gem_ts.attributes``).
    """

    #: Set once __init__ is done: from then on an assignment to a new public name goes to the server.
    _attrs_remote = False
    #: Log every step (``make(..., verbose=True)``, GEM's eval-env flag).
    verbose = False

    def __init__(
        self,
        client: BlockingOps,
        env_id: str,
        options: Optional[Dict[str, Any]] = None,
        wrappers: Sequence[Any] = (),
        seed: Optional[int] = None,
    ):
        self.client = client
        self.env_id = calls.env_id_arg(env_id)
        self.entry_point = "gem-ts server"
        self._options = dict(options or {})
        self._wrapper_list = list(wrappers)
        self._seed = seed  # the env's construction seed (GEM's MathEnv(seed=...)), kept for with_wrappers
        info = client.drive(calls.make_one(client.session, env_id, self._options, self._wrapper_list, seed))
        self.handle = info["handle"]
        self.wrappers: List[str] = info["wrappers"]
        self._repr: str = info["repr"][0]
        self._closed = False
        self._step = [0]
        self._attrs_remote = True

    def get_attr(self, name: str) -> Any:
        """The env's attribute ``name`` as the server holds it (what ``env.<name>`` reads)."""
        return self.client.run(calls.get_attr(self.handle, name))[0]

    def set_attr(self, name: str, value: Any) -> None:
        """Writes the env's attribute ``name`` on the server (what ``env.<name> = value`` does)."""
        self.client.run(calls.set_attr(self.handle, name, [value], each=False))

    def __getattr__(self, name: str) -> Any:
        # Only called for names this object does not hold: those are the served env's.
        if not is_remote_name(name) or not self.__dict__.get("_attrs_remote"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self.get_attr(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._attrs_remote or not is_remote_name(name) or name in self.__dict__ or hasattr(type(self), name):
            object.__setattr__(self, name, value)
        else:
            self.set_attr(name, value)

    def reset(self, seed: Optional[int] = None, **kwargs: Any) -> Tuple[str, Dict[str, Any]]:
        options = calls.reset_kwargs(kwargs)  # reset(idx=i) or Gymnasium's reset(options={"idx": i})
        result: ResetOne = self.client.run(calls.reset(self.handle, seed=seed, options=options or None, decode=calls.reset_one))
        return result

    def step(self, action: str) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
        result: StepOne = self.client.run(
            calls.step(self.handle, self._step, [calls.action_arg(action, 0)], 1, calls.step_one)
        )
        if self.verbose:
            _log_step(self.env_id, action, result)
        return result

    def sample_random_action(self) -> str:
        return self.client.run(calls.sample(self.handle, [0]))[0]

    @property
    def spec(self) -> Dict[str, Any]:
        specs: List[Dict[str, Any]] = self.client.spec(handle=self.handle)["specs"]
        return specs[0]

    def with_wrappers(self, wrappers: Sequence[WrapperFn]) -> "ServerEnv":
        """This env rebuilt with ``wrappers`` on top (what calling a WrapperFn on it does)."""
        new = ServerEnv(self.client, self.env_id, self._options, [*self._wrapper_list, *wrappers], self._seed)
        self.close()
        return new

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.client.close_handle(self.handle)

    def __repr__(self) -> str:
        return self._repr

    __str__ = __repr__


def make_env(client: BlockingOps, env_id: Any, **kwargs: Any) -> ServerEnv:
    """One env by id; ``kwargs`` are the env's options (GEM's kwargs, e.g. ``max_turns=5``).

    ``env_id`` may also be another env's ``spec`` (a dict with ``id``, ``options``, ``wrappers``): the
    same env is made again, wrappers included; ``kwargs`` override its options.
    ``verbose=True`` (GEM's eval envs take it) logs every step of this env (logger ``gem_ts.env``).
    """
    if isinstance(env_id, Mapping) and isinstance(env_id.get("id"), str):
        spec = env_id
        env = make_env(client, spec["id"], **{**dict(spec.get("options") or {}), **kwargs})
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
    env = ServerEnv(client, env_id, kwargs, seed=seed)
    env.verbose = verbose
    return env
