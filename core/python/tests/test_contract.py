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


def _requests_built_by_the_client() -> list:
    from gem_ts import calls
    from gem_ts.session import Handle, Session

    s = Session("ipc:///nowhere", token="t")
    h = Handle(3, "boot", 4)
    return [
        s.hello_call(),
        calls.ping(),
        calls.list_envs("game", verbose=True),
        calls.spec(env_id="game:GuessTheNumber-v0"),
        calls.spec(handle=h),
        calls.make(s, ["a:b", "c:d"], num_envs=2, options={"x": 1}, vec_options=[{}, {}], wrappers=["concat"],
                   wrapper_options={"k": 1}, autoreset_mode="disabled", seed=3, async_mode=True),  # fmt: skip
        calls.reset(h, seed=[1, 2], options=[{}, {}], indices=[0, 1]),
        calls.step(h, [0, 1], ["a", "b"], 64),
        calls.step(h, [0, 1], ["a", "b"], 1),  # Arrow body
        calls.batch([h, 5], [0, 2], [None, "a"], [7, None], [{"idx": 1}, None]),
        calls.sample(h, [0]),
        calls.get_attr(h, "answer", [0]),
        calls.set_attr(h, "answer", ["4"], each=False),
        calls.set_attr(h, "answer", ["4", "5"], each=True, indices=[0, 1]),
        calls.close(h),
        calls.close(),
        calls.register_dataset("d", b""),
        calls.register_env("py:X-v0", "doc", {"a": 1}),
        calls.stats(),
    ]


def test_every_request_the_client_builds_has_only_contract_fields() -> None:
    """A field the client sends that the server's strict schema lacks would be INVALID_REQUEST."""
    built = _requests_built_by_the_client()
    assert {c.op for c in built} == set(_contract.REQUEST_FIELDS) - {"env_return"}
    for call in built:
        keys = set(call.header)
        assert keys <= _contract.REQUEST_FIELDS[call.op], (call.op, keys - _contract.REQUEST_FIELDS[call.op])
        assert _contract.REQUEST_REQUIRED[call.op] <= keys, call.op
    env_return = msgpack_unpack(gem.python_envs.env_return(lambda c: 1, {"id": 7}))
    assert set(env_return) <= _contract.REQUEST_FIELDS["env_return"]


def msgpack_unpack(data: bytes) -> dict:
    from gem_ts import protocol

    return protocol.unpack(data)


def test_reply_fields_the_client_reads_are_in_the_contract() -> None:
    """The hello fields the session reads and the rows columns the decoders read are declared."""
    assert {"server", "limits", "boot_id"} <= set(_contract.HelloReply.__annotations__)
    assert {"heartbeat_ms", "inline_max_rows"} <= set(_contract.HelloReplyLimits.__annotations__)
    assert {"env_index", "observation", "reward", "terminated", "truncated", "info"} == set(_contract.RowsReplyRows.__annotations__)
    assert {"handle", "num_envs", "env_ids", "autoreset_mode", "wrappers", "repr"} <= set(_contract.MakeReply.__annotations__)

