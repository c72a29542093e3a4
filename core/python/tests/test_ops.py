"""ops.py: an op is written once and both clients (and both vector envs) take it from there."""

from __future__ import annotations

import asyncio
from typing import Any, List

import pyarrow as pa
import pytest

import gem_ts as gem
from gem_ts import aio, calls, ops, protocol
from gem_ts.client import Client
from gem_ts.session import Call
from gem_ts.vector import VectorEnv, VectorPlumbing

EASY = "game:GuessTheNumber-v0-easy"
VECTOR_OPS = ["reset", "step", "sample_random_actions", "get_attr", "set_attr", "close"]


def test_neither_client_declares_an_op_of_its_own() -> None:
    names = ops.shared_names()
    assert {"ping", "reset", "step", "sample", "close_handle", "register_dataset", "register", "stats"} <= set(names)
    for cls in (Client, aio.AsyncClient):
        assert not set(names) & set(vars(cls)), f"{cls.__name__} redefines an op of ops.ClientOps"
        assert all(isinstance(getattr(cls, n), type(ops.ClientOps.ping)) for n in names)


def test_both_vector_envs_share_one_plumbing() -> None:
    for cls in (VectorEnv, gem.SyncVectorEnv, gem.AsyncVectorEnv, aio.AsyncVectorEnv):
        assert issubclass(cls, VectorPlumbing)
        assert not set(VECTOR_OPS) & set(vars(cls)), f"{cls.__name__} redefines a vector op"


class _Recorder:
    """A stand-in runner: what an op hands to ``run``/``drive``."""

    def __init__(self) -> None:
        self.sent: List[Any] = []

    def run(self, call: Call[Any]) -> Any:
        self.sent.append(call)
        return "ran"

    def drive(self, plan: Any) -> Any:
        return calls.run_plan(plan, self.run)


class _BlockingOwner(ops.Blocking):
    def __init__(self, runner: _Recorder) -> None:
        self._runner = runner

    ping = ops.op(calls.ping)
    named = ops.owner_op(lambda owner, name: calls.stats() if owner is not None and name else calls.ping())


def test_an_op_builds_its_call_and_hands_it_to_the_owners_runner() -> None:
    runner = _Recorder()
    owner = _BlockingOwner(runner)
    assert owner.ping() == "ran"
    assert owner.named("x") == "ran"
    assert [c.op for c in runner.sent] == ["ping", "stats"]
    assert isinstance(_BlockingOwner.ping, type(ops.ClientOps.ping))  # on the class: the descriptor itself


def test_an_awaiting_owner_gets_the_same_call_awaited() -> None:
    class Runner:
        sent: List[str] = []

        async def run(self, call: Call[Any]) -> str:
            self.sent.append(call.op)
            return "awaited"

    class Owner(ops.Awaiting):
        _runner = Runner()
        ping = ops.op(calls.ping)

    assert asyncio.run(Owner().ping()) == "awaited"  # type: ignore[arg-type]
    assert Runner.sent == ["ping"]


class _FakeClient(ops.BlockingOps):
    """The real op table over a recorder instead of a connection."""

    def __init__(self) -> None:
        self.recorder = _Recorder()

    def run(self, call: Call[Any]) -> Any:
        return self.recorder.run(call)

    def drive(self, plan: Any) -> Any:
        return self.recorder.drive(plan)


def test_the_op_table_checks_arguments_before_anything_is_sent() -> None:
    c = _FakeClient()
    with pytest.raises(TypeError, match="a seed must be an int"):
        c.reset(1, seed="seven")  # type: ignore[arg-type]
    assert c.recorder.sent == []
    c.reset(1, seed=7, indices=[0])
    c.sample(1, [0])
    assert [(x.op, x.header.get("seed")) for x in c.recorder.sent] == [("reset", 7), ("sample", None)]


def test_register_table_takes_an_arrow_stream_as_it_is() -> None:
    stream = protocol.write_stream(pa.table({"q": ["a"]}))
    assert calls.register_table("t", stream).body == stream
    assert calls.register_table("t", [{"q": "a"}]).body == stream


# ── over a server: the resolved differences ─────────────────────────────────────────────────────


def test_the_sync_client_makes_envs_as_gem_does_and_the_raw_op_is_make_handle(client: Client) -> None:
    env = client.make(EASY, max_turns=3)
    try:
        assert isinstance(env, gem.ServerEnv) and env.client is client
        assert isinstance(env.reset(seed=1)[0], str)
    finally:
        env.close()
    with client.make_vec(EASY, num_envs=2, autoreset_mode="disabled") as vec:
        assert isinstance(vec, gem.SyncVectorEnv) and len(vec) == 2
    reply = client.make_handle(EASY, num_envs=2)
    try:
        assert reply["num_envs"] == 2 and int(reply["handle"]) >= 0
    finally:
        client.close_handle(reply["handle"])


def test_both_clients_register_a_table_or_an_arrow_stream(client: Client, server: Any) -> None:
    stream = protocol.write_stream(pa.table({"q": ["a", "b"]}))
    assert client.register_dataset("pytest:ops-bytes", stream)["rows"] == 2
    assert client.register_dataset("pytest:ops-rows", [{"q": "a"}])["rows"] == 1

    async def go() -> List[int]:
        async with await aio.connect(server.endpoint) as c:
            a = await c.register_dataset("pytest:ops-abytes", stream)
            b = await c.register_dataset("pytest:ops-arows", [{"q": "a"}])
            await c.register_env("pytest:ops-Registered-v0")  # the sync client's op, now on both
            return [a["rows"], b["rows"]]

    assert asyncio.run(go()) == [2, 1]


def test_the_async_vector_env_has_the_sync_ones_ops(server: Any) -> None:
    async def go() -> None:
        async with await aio.connect(server.endpoint) as c:
            async with await c.make_vec(EASY, num_envs=3, autoreset_mode="disabled", max_turns=4) as vec:
                assert len(vec) == 3 and "× " in repr(vec)
                assert len(await vec.sample_random_actions()) == 3
                await vec.reset(seed=0)
                assert await vec.get_attr("max_turns") == (4, 4, 4)
                await vec.set_attr("max_turns", 6, indices=[1])
                assert await vec.get_attr("max_turns") == (4, 6, 4)
            assert vec.closed
            await vec.close()  # a second close is a no-op, as on the sync vector env

    asyncio.run(go())
