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

import re
from typing import Any, List, Mapping, Optional

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
    "python_hint",
    *(cls.__name__ for cls in ERROR_CLASSES.values()),
]


def error_for(code: str, message: str, data: Any = None) -> GemError:
    """The exception of ``code`` (a ``GemError`` for a code this client does not know)."""
    return ERROR_CLASSES.get(code, GemError)(code, message, data)


def _literal(value: Any) -> str:
    """A hint value as Python source: ``{"code": "i"}`` is a name, anything else a literal."""
    if isinstance(value, dict) and isinstance(value.get("code"), str):
        return str(value["code"])
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def _kwargs(options: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_literal(v)}" for k, v in options.items())


def python_hint(hint: Mapping[str, Any]) -> Optional[str]:
    """The Python form of a code hint the server put in an error (core/src/core/codeHint.ts); None
    for a kind this client does not know (the message then keeps the server's text)."""
    kind = hint.get("kind")
    if kind == "make":
        return f"gem_ts.make({hint.get('id')!r}, {_kwargs(hint.get('options') or {})})"
    if kind == "reset":
        return f"env.reset({_kwargs(hint.get('options') or {})})"
    if kind == "reset_envs":
        return f"envs.reset(indices={_literal(hint.get('indices'))})"
    if kind == "register_dataset":
        hub, split = hint.get("hub"), hint.get("split")
        load = f"datasets.load_dataset({hub!r}{f', split={split!r}' if split else ''})" if hub else "your_dataset"
        return f"gem_ts.register_dataset({hint.get('name')!r}, {load})"
    if kind == "value":
        return repr(hint.get("value"))
    return None


def _hints(data: Any) -> List[Any]:
    """The hints of an error's data and of the error it wraps (``cause``: a vector env's ``env i: …``)."""
    if not isinstance(data, Mapping):
        return []
    own = data.get("hints")
    cause = data.get("cause")
    return (own if isinstance(own, list) else []) + (_hints(cause.get("data")) if isinstance(cause, Mapping) else [])


def in_python(message: str, data: Any) -> str:
    """``message`` with each code hint in ``data["hints"]`` rewritten as Python."""
    for hint in _hints(data):
        text = hint.get("text") if isinstance(hint, Mapping) else None
        if not isinstance(text, str) or not text:
            continue
        py = python_hint(hint)
        if py is not None:
            # A bare value (null, true) is a word: never a part of another one.
            message = re.sub(rf"(?<![\w.]){re.escape(text)}(?!\w)", py.replace("\\", "\\\\"), message)
    return message


def error_from_wire(err: Mapping[str, Any], op: Optional[str] = None) -> GemError:
    code = str(err.get("code", "INTERNAL"))
    data = err.get("data")
    message = in_python(str(err.get("message", "unknown error")), data)
    if op:
        message = f"{op}: {message}"
    return error_for(code, message, data)
