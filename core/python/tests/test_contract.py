"""The Python side of the wire contract: generated from the server's (core/src/server/protocol/
contract.ts; the vitest twin fails when _contract.py is stale). Here: every code raises its own class of
the right family, and the client uses no code and sends no field the server does not know."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gem_ts as gem
from gem_ts import _contract, errors

PKG = Path(gem.__file__).parent


def test_every_code_has_its_own_class_raised_for_it() -> None:
    seen = set()
    for code in _contract.ERROR_CODES:
        err = errors.error_from_wire({"code": code, "message": "m", "data": {"x": 1}}, "step")
        assert type(err) is _contract.ERROR_CLASSES[code]
        assert err.code == code and err.message == "step: m" and err.data == {"x": 1}
        assert isinstance(err, gem.GemError)
        seen.add(type(err))
    assert len(seen) == len(_contract.ERROR_CODES)


@pytest.mark.parametrize(
    "code, builtin",
    [
        ("UNKNOWN_ENV", ValueError),
        ("INVALID_OPTIONS", ValueError),
        ("RESET_NEEDED", ValueError),  # as before it had its own class
        ("RESET_NEEDED", RuntimeError),
        ("ENV_CLOSED", RuntimeError),
        ("ALREADY_PENDING", RuntimeError),
        ("NOT_SUPPORTED", NotImplementedError),
        ("UNKNOWN_HANDLE", KeyError),
        ("SERVER_UNAVAILABLE", ConnectionError),
        ("TIMEOUT", TimeoutError),
        ("UNAUTHORIZED", PermissionError),
    ],
)
def test_families_are_the_builtin_exceptions_gem_users_catch(code: str, builtin: type) -> None:
    assert isinstance(errors.error_for(code, "m"), builtin)


def test_new_classes_are_exported() -> None:
    for name in ("ResetNeededError", "EnvClosedError", "AlreadyPendingError", "NotSupportedError", "UnauthorizedError"):
        assert getattr(gem, name) is getattr(errors, name)
    assert gem.ResetNeededError is _contract.ERROR_CLASSES["RESET_NEEDED"]


def test_an_unknown_code_is_still_a_gem_error() -> None:
    err = errors.error_from_wire({"code": "FROM_A_NEWER_SERVER", "message": "m"})
    assert type(err) is gem.GemError and err.code == "FROM_A_NEWER_SERVER"


def test_the_client_uses_no_code_the_server_lacks() -> None:
    """Codes written by hand in the client (GemError("X", …), error_for("X", …)) are contract codes."""
    used = set()
    for path in PKG.rglob("*.py"):
        if path.name == "_contract.py":
            continue
        used |= set(re.findall(r"""(?:Error|error_for)\(\s*["']([A-Z][A-Z_]+)["']""", path.read_text()))
    assert used, "the scan found no codes at all: the pattern is broken"
    assert used <= set(_contract.ERROR_CODES), used - set(_contract.ERROR_CODES)
