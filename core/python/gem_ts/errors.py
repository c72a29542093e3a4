"""Errors raised by gem_ts. Every server error keeps its stable ``code`` (docs/protocol.md §Errors).

Each code has its own class (generated into ``_contract.py`` from the server's list), derived from a
family that is also the built-in exception a GEM user would catch (see ``_error_bases``):

- ``InvalidRequestError`` (``ValueError``): unknown env, bad options, bad batch, malformed request…
- ``EnvStateError`` (``RuntimeError``): ``ResetNeededError`` (also a ``ValueError``), ``EnvClosedError``,
  ``AlreadyPendingError``
- ``UnknownHandleError`` (``KeyError``), ``LimitExceededError``, ``ServerUnavailableError``
  (``ConnectionError``), ``RequestTimeoutError`` (``TimeoutError``), ``UnauthorizedError``
  (``PermissionError``), ``NotSupportedError`` (``NotImplementedError``); other failures are ``GemError``.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from ._contract import *  # noqa: F403  (one class per error code)
from ._contract import ERROR_CLASSES, ERROR_CODES
from ._error_bases import (
    EnvStateError,
    GemError,
    InvalidRequestError,
    LimitExceededError,
    NotSupportedError,
    RequestTimeoutError,
    ServerUnavailableError,
    UnauthorizedError,
    UnknownHandleError,
)

__all__ = [
    "ERROR_CLASSES",
    "ERROR_CODES",
    "EnvStateError",
    "GemError",
    "InvalidRequestError",
    "LimitExceededError",
    "NotSupportedError",
    "RequestTimeoutError",
    "ServerUnavailableError",
    "UnauthorizedError",
    "UnknownHandleError",
    "error_for",
    "error_from_wire",
    *(cls.__name__ for cls in ERROR_CLASSES.values()),
]


def error_for(code: str, message: str, data: Any = None) -> GemError:
    """The exception of ``code`` (a ``GemError`` for a code this client does not know)."""
    return ERROR_CLASSES.get(code, GemError)(code, message, data)


def error_from_wire(err: Mapping[str, Any], op: Optional[str] = None) -> GemError:
    code = str(err.get("code", "INTERNAL"))
    message = str(err.get("message", "unknown error"))
    if op:
        message = f"{op}: {message}"
    return error_for(code, message, err.get("data"))
