"""gem_ts: GEM's Python API, served by the TypeScript gem-ts server over ZeroMQ and Arrow.

Write ``import gem_ts as gem`` where a GEM script says ``import gem``: ``gem.make``, ``gem.make_vec``,
``gem.wrappers.get_wrapper_fns``, ``gem.print_envs`` and ``gem.register`` keep GEM's signatures.
Without ``GEM_TS_ENDPOINT`` the first call starts a local server, stopped when the process exits.
"""

from . import multiagent, utils, wrappers
from .client import Client, connect, default_client, register_dataset, set_default_client
from .core import TERMINAL_STATE, Env
from .env import ServerEnv
from .errors import *  # noqa: F403  (GemError, its families and one class per error code)
from .errors import __all__ as _error_names
from .local_server import LocalServer
from .registration import make, make_vec, print_envs, register
from . import envs, tools  # noqa: E402  (after registration: they build on it)
from .vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv

__version__ = "0.1.0"

#: Autoreset modes (``make_vec(..., autoreset_mode=...)``); GEM's default is same_step.
SAME_STEP, NEXT_STEP, DISABLED = "same_step", "next_step", "disabled"

__all__ = [
    *_error_names,
    "AsyncVectorEnv",
    "Client",
    "DISABLED",
    "Env",
    "LocalServer",
    "NEXT_STEP",
    "SAME_STEP",
    "ServerEnv",
    "SyncVectorEnv",
    "TERMINAL_STATE",
    "VectorEnv",
    "connect",
    "default_client",
    "make",
    "make_vec",
    "print_envs",
    "register",
    "register_dataset",
    "set_default_client",
    "envs",
    "multiagent",
    "tools",
    "utils",
    "wrappers",
]
