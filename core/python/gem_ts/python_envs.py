"""Envs defined in this Python process and served to the gem-ts server.

``gem_ts.register(env_id, entry_point, **kwargs)`` records the factory here and announces the id to
the server (op ``register_env``). When anyone makes that id, the server builds a proxy env whose
resets and steps arrive back here as ``env_call`` messages; the connection answers them while it
waits on the server, and its heartbeat thread answers them while the caller is busy elsewhere.
Server-side wrappers, vector envs and autoreset then apply to Python envs like to built-in ones.
A ``MultiAgentEnv`` is served through :class:`~gem_ts.multiagent.served.ServedMultiAgent`.
"""

from __future__ import annotations

import importlib
import inspect
import threading
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Optional, Tuple, Union

from . import protocol
from .errors import GemError
from .multiagent.multi_agent_env import MultiAgentEnv
from .multiagent.served import ServedMultiAgent

EntryPoint = Union[str, Callable[..., Any]]


@dataclass
class PythonEnvSpec:
    env_id: str
    entry_point: EntryPoint
    kwargs: Dict[str, Any] = field(default_factory=dict)
    description: Optional[str] = None

    def factory(self) -> Callable[..., Any]:
        ep = self.entry_point
        if callable(ep):
            return ep
        module, _, attr = str(ep).partition(":")
        if not attr:
            raise GemError("INVALID_OPTIONS", f"entry point '{ep}' must look like 'package.module:ClassName'")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as e:
            raise GemError("INVALID_OPTIONS", f"cannot import entry point '{ep}': {e}") from e


def _accepts(fn: Callable[..., Any], name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


class PythonEnvHost:
    def __init__(self) -> None:
        self.specs: Dict[str, PythonEnvSpec] = {}
        self.instances: Dict[Tuple[str, int], Any] = {}
        self._lock = threading.Lock()

    def add(self, spec: PythonEnvSpec) -> None:
        self.specs[spec.env_id] = spec

    def forget_instances(self) -> None:
        """A restarted server holds none of the instances it asked for: drop them."""
        with self._lock:
            self.instances.clear()

    def handle(self, call: Dict[str, Any]) -> Any:
        env_id = str(call.get("env_id"))
        key = (env_id, int(call.get("instance", -1)))
        args = call.get("args") or {}
        what = call.get("call")
        with self._lock:
            if what == "create":
                spec = self.specs.get(env_id)
                if spec is None:
                    raise GemError("UNKNOWN_ENV", f"env '{env_id}' is not registered in this Python process")
                factory = spec.factory()
                kwargs = {**spec.kwargs, **(args.get("options") or {})}
                seed = args.get("seed")
                if seed is not None and "seed" not in kwargs and _accepts(factory, "seed"):
                    kwargs["seed"] = seed  # GEM's make_vec passes seed + i the same way
                self.instances[key] = _served(factory(**kwargs))
                return None
            env = self.instances.get(key)
        if env is None:
            raise GemError("ENV_CLOSED", f"no live instance {key[1]} of '{env_id}' in this Python process")
        if what == "reset":
            options = args.get("options") or {}
            obs, info = env.reset(seed=args.get("seed"), **options)
            return {"observation": obs, "info": dict(info or {})}
        if what == "step":
            obs, reward, terminated, truncated, info = env.step(args.get("action"))
            return {
                "observation": obs,
                "reward": float(reward),
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                "info": dict(info or {}),
            }
        if what in ("get_attr", "set_attr") and isinstance(env, ServedMultiAgent):
            env = env.env  # attributes are the MultiAgentEnv's own (agents, possible_agents, ...)
        if what == "get_attr":
            return _wire_value(env, _public_name(env, args.get("name")))
        if what == "set_attr":
            name = args.get("name")
            if not isinstance(name, str) or name.startswith("_"):
                raise GemError("UNKNOWN_ATTRIBUTE", f"'{type(env).__name__}' has no public attribute {name!r}")
            setattr(env, name, args.get("value"))
            return None
        if what == "close":
            with self._lock:
                self.instances.pop(key, None)
            close = getattr(env, "close", None)
            if callable(close):
                close()
            return None
        raise GemError("NOT_SUPPORTED", f"unknown env call '{what}'")


def _served(env: Any) -> Any:
    """A MultiAgentEnv steps with dicts; served, it is played from the acting agent's view."""
    return ServedMultiAgent(env) if isinstance(env, MultiAgentEnv) else env


def _public_name(env: Any, name: Any) -> str:
    """A public attribute the Python env object has (what ``env.<name>`` on its served twin reads)."""
    if not isinstance(name, str) or name.startswith("_") or not hasattr(env, name):
        public = sorted(k for k in vars(env) if not k.startswith("_")) if hasattr(env, "__dict__") else []
        raise GemError("UNKNOWN_ATTRIBUTE", f"'{type(env).__name__}' has no attribute {name!r}; it has: {', '.join(public) or 'none'}")
    return name


_PLAIN = (str, int, float, bool, type(None))


def _wire_value(env: Any, name: str) -> Any:
    """The attribute's value if it travels as msgpack (plain data), else a clear error."""
    value = getattr(env, name)

    def plain(v: Any) -> bool:
        if isinstance(v, _PLAIN):
            return True
        if isinstance(v, (list, tuple)):
            return all(plain(x) for x in v)
        if isinstance(v, dict):
            return all(isinstance(k, str) and plain(x) for k, x in v.items())
        return False

    if not plain(value):
        raise GemError("INVALID_ATTRIBUTE", f"attribute {name!r} of '{type(env).__name__}' is a {type(value).__name__}, which does not travel over the wire (plain data only)")
    return list(value) if isinstance(value, tuple) else value


def env_return(handler: Callable[[Dict[str, Any]], Any], call: Dict[str, Any]) -> bytes:
    """The packed ``env_return`` answering ``call``: the handler's result, or its error with a code
    (a bug in a user's env is reported to the server, never raised into the client's loop)."""
    reply: Dict[str, Any] = {"v": protocol.PROTOCOL_VERSION, "id": call.get("id", 0), "op": "env_return"}
    try:
        reply.update(ok=True, result=handler(call))
    except GemError as e:
        reply.update(ok=False, error={"code": e.code, "message": e.message})
    except Exception as e:
        tb = traceback.format_exc(limit=5)
        reply.update(ok=False, error={"code": "INTERNAL", "message": f"{type(e).__name__}: {e}", "data": {"traceback": tb}})
    try:
        return protocol.pack(reply)
    except TypeError as e:
        bad = {"code": "INVALID_BODY", "message": f"the env returned something that cannot be sent: {e}"}
        return protocol.pack({**reply, "ok": False, "result": None, "error": bad})
