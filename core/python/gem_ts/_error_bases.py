"""The exception families of gem_ts, one per error kind of the wire contract (contract.ts).

Every server error code gets its own class in the generated ``_contract.py``, derived from the family
of its kind. The families also derive from the built-in exception a GEM user would catch: GEM raises
``ValueError`` for an unknown env id or a bad argument, so ``InvalidRequestError`` is one; a closed or
stale handle is a ``KeyError``; a gone server a ``ConnectionError``; no answer in time a
``TimeoutError``. ``RESET_NEEDED`` stays a ``ValueError`` too (it was one before it had its own class).
"""

from __future__ import annotations

from typing import Any


class GemError(Exception):
    """An error with a stable code, raised for every error reply of the server."""

    code: str
    message: str
    data: Any

    def __init__(self, code: str, message: str, data: Any = None):
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.data = data

    def __reduce__(self) -> Any:
        # The default rebuilds with ``cls(*self.args)``, one formatted string, which no subclass's
        # ``__init__`` takes: a gem-ts error raised in a Ray actor or task reached its caller as
        # Ray's UnserializableException, its message lost. Rebuild from the instance's own state.
        return (_rebuild, (type(self), self.args, self.__dict__))


def _rebuild(cls: "type[GemError]", args: tuple, state: dict) -> GemError:
    err: GemError = cls.__new__(cls)
    err.args = args
    err.__dict__.update(state)
    return err


class InvalidRequestError(GemError, ValueError):
    """The request or its arguments are wrong (unknown env, bad options, bad batch, …)."""


class EnvStateError(GemError, RuntimeError):
    """The env is not in a state for this call: it needs a reset, is closed, or is busy."""


class UnknownHandleError(GemError, KeyError):
    """The env handle is closed, was freed, belongs to another client, or to a server that restarted."""

    def __str__(self) -> str:  # KeyError would quote the message
        return Exception.__str__(self)


class LimitExceededError(GemError):
    """A server limit (message size, envs per handle, handles per client, the bytes a session holds —
    data, and an env's history under ``concat`` and its kin — …) was hit. ``data`` has ``limit``,
    ``value`` and ``max``; a refused step also names its env (``index``, ``handle``): nothing stepped,
    and a reset of that env frees its history."""


class ServerUnavailableError(GemError, ConnectionError):
    """The server (or what it needs) died, closed the connection, or stopped answering."""


class RequestTimeoutError(GemError, TimeoutError):
    """No reply within the request's timeout."""


class UnauthorizedError(GemError, PermissionError):
    """The server wants an auth token this session has not presented (``token=`` / ``GEM_TS_TOKEN``)."""


class NotSupportedError(GemError, NotImplementedError):
    """The env or the server cannot do this."""
