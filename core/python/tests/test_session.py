"""The session core: the auth token travels in hello (token=, GEM_TS_TOKEN) for both clients; replies
are matched to requests and never confused with the server's own env_call messages."""

from __future__ import annotations

import asyncio
from typing import Iterator

import pytest

import gem_ts as gem
from gem_ts import Client, LocalServer, aio

EASY = "game:GuessTheNumber-v0-easy"
TOKEN = "s3cret-for-this-test"


@pytest.fixture(scope="module")
def guarded() -> Iterator[LocalServer]:
    srv = LocalServer(["--auth-token", TOKEN])
    yield srv
    srv.stop()


def test_a_client_without_the_token_is_refused(guarded: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEM_TS_TOKEN", raising=False)
    with pytest.raises(gem.UnauthorizedError) as e:
        Client(guarded.endpoint)
    assert isinstance(e.value, PermissionError) and e.value.code == "UNAUTHORIZED"
    with pytest.raises(gem.UnauthorizedError):
        Client(guarded.endpoint, token="wrong")


def test_token_argument_and_env_var_are_sent_in_hello(guarded: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    with Client(guarded.endpoint, token=TOKEN) as c:
        env = gem.make(EASY, client=c)
        assert env.reset(seed=0)[0]
        env.close()
    monkeypatch.setenv("GEM_TS_TOKEN", TOKEN)
    with Client(guarded.endpoint) as c:
        assert c.ping() > 0


def test_the_asyncio_client_sends_the_token_too(guarded: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEM_TS_TOKEN", raising=False)

    async def main() -> None:
        with pytest.raises(gem.UnauthorizedError):
            await aio.connect(guarded.endpoint)
        async with await aio.connect(guarded.endpoint, token=TOKEN) as c:
            env = await c.make(EASY)
            assert (await env.reset(seed=0))[0]

    asyncio.run(asyncio.wait_for(main(), 30))


def test_hello_announces_the_servers_boot_id(client: Client, fresh_client: Client) -> None:
    assert len(client.boot_id) >= 16 and client.boot_id == fresh_client.boot_id  # one server process
    env = gem.make(EASY, client=client)
    assert getattr(env.handle, "boot_id") == client.boot_id
    env.close()


def test_an_env_call_is_never_taken_for_the_reply_that_shares_its_id() -> None:
    """env_call ids are the server's own sequence; they collide with request ids all the time."""
    from gem_ts import calls, protocol
    from gem_ts.session import Session

    s = Session("ipc:///nowhere")
    call = calls.ping()
    s.frame(call, 0.0)
    env_call = {"v": 1, "id": call.rid, "op": "env_call", "env_id": "py:X-v0", "instance": 0, "call": "reset", "args": {}}
    assert s.receive([protocol.pack(env_call)], 0.0) == env_call
    reply = s.receive([protocol.pack({"v": 1, "id": call.rid, "ok": True, "time_ms": 5})], 0.0)
    assert isinstance(reply, tuple) and reply[0] is call and s.finish(call, reply[1], reply[2]) == 5.0
