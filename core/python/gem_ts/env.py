"""A single env served by gem-ts, with GEM's ``Env`` API (``gem_ts.make``)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import calls
from .calls import ResetOne, StepOne
from .client import Client
from .core import Env
from .wrappers.wrapper_factory import WrapperFn


class ServerEnv(Env):
    """One env on the server (a handle with one env, autoreset disabled, as GEM's make gives)."""

    def __init__(
        self,
        client: Client,
        env_id: str,
        options: Optional[Dict[str, Any]] = None,
        wrappers: Sequence[Any] = (),
    ):
        self.client = client
        self.env_id = calls.env_id_arg(env_id)
        self.entry_point = "gem-ts server"
        self._options = dict(options or {})
        self._wrapper_list = list(wrappers)
        info = client.drive(calls.make_one(client.session, env_id, self._options, self._wrapper_list))
        self.handle = info["handle"]
        self.wrappers: List[str] = info["wrappers"]
        self._repr: str = info["repr"][0]
        self._closed = False
        self._step = [0]

    def reset(self, seed: Optional[int] = None, **kwargs: Any) -> Tuple[str, Dict[str, Any]]:
        result: ResetOne = self.client.run(calls.reset(self.handle, seed=seed, options=kwargs or None, decode=calls.reset_one))
        return result

    def step(self, action: str) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
        result: StepOne = self.client.run(
            calls.step(self.handle, self._step, [calls.action_arg(action, 0)], 1, calls.step_one)
        )
        return result

    def sample_random_action(self) -> str:
        return self.client.run(calls.sample(self.handle, [0]))[0]

    @property
    def spec(self) -> Dict[str, Any]:
        specs: List[Dict[str, Any]] = self.client.spec(handle=self.handle)["specs"]
        return specs[0]

    def with_wrappers(self, wrappers: Sequence[WrapperFn]) -> "ServerEnv":
        """This env rebuilt with ``wrappers`` on top (what calling a WrapperFn on it does)."""
        new = ServerEnv(self.client, self.env_id, self._options, [*self._wrapper_list, *wrappers])
        self.close()
        return new

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.client.close_handle(self.handle)

    def __repr__(self) -> str:
        return self._repr

    __str__ = __repr__
