"""Server faults seen from both clients: a server killed (-9) and restarted on the same endpoint, a
frozen server (SIGSTOP), a server that dies while the client is idle. Every wait is bounded. Each
runs over both transports: ZeroMQ (``ipc://``) and the stream one (``stream+ipc://``)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Iterator

import pytest

import gem_ts as gem
from gem_ts import Client, LocalServer, aio

EASY = "game:GuessTheNumber-v0-easy"


class Restartable:
    """A server on a fixed ipc endpoint that can be killed and started again there."""

    def __init__(self, path: Path, scheme: str = "ipc"):
        self.endpoint = f"{scheme}://{path}"
        self.srv = LocalServer(endpoint=self.endpoint)

    def kill(self) -> None:
        self.srv.proc.send_signal(signal.SIGKILL)
        self.srv.proc.wait(10)
        self.srv.stop()

    def restart(self) -> None:
        self.kill()
        self.srv = LocalServer(endpoint=self.endpoint)

    def freeze(self) -> None:
        os.kill(self.srv.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        if self.srv.alive():
            os.kill(self.srv.proc.pid, signal.SIGCONT)


@pytest.fixture(params=["ipc", "stream+ipc"])
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Restartable]:
    r = Restartable(tmp_path / "gem.sock", request.param)
    yield r
    r.thaw()
    r.srv.stop()


def _wait_connected(c: Client, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            c.ping()
            return
        except gem.ServerUnavailableError:
            time.sleep(0.1)
    raise AssertionError("the client did not reconnect")


# ── a stale env never drives a new one ──────────────────────────────────────────────────────────


def test_sync_env_from_a_dead_server_raises_and_never_reaches_the_new_servers_env(server: Restartable) -> None:
    with Client(server.endpoint) as c:
        old = gem.make(EASY, client=c)
        old.reset(seed=1)
        boot = c.boot_id
        server.restart()
        _wait_connected(c)
        assert c.boot_id != boot
        new = gem.make(EASY, client=c)
        assert int(new.handle) == int(old.handle)  # ids restart with the process: the aliasing case
        first, _ = new.reset(seed=2)
        with pytest.raises(gem.UnknownHandleError, match="server that has restarted"):
            old.step("\\boxed{5}")
        with pytest.raises(KeyError):  # UnknownHandleError is GEM-compatible
            old.reset(seed=1)
        old.close()  # closing what the dead server held is a no-op, not a close of `new`
        obs, reward, terminated, truncated, _ = new.step("\\boxed{5}")
        assert isinstance(obs, str) and isinstance(reward, float)
        assert c.stats()["client"]["handles"] == 1
        new.close()


def test_asyncio_client_recovers_after_a_restart_and_rejects_stale_envs(server: Restartable) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint) as c:
            old = await c.make_vec(EASY, num_envs=4, autoreset_mode="disabled")
            await old.reset(seed=0)
            server.restart()
            # The next calls work again once the server is back (they used to repeat the old error).
            end = time.monotonic() + 10
            while True:
                try:
                    await c.ping()
                    break
                except gem.ServerUnavailableError:
                    assert time.monotonic() < end, "the asyncio client stayed dead"
                    await asyncio.sleep(0.1)
            new = await c.make_vec(EASY, num_envs=4, autoreset_mode="disabled")
            assert int(new.handle) == int(old.handle)
            await new.reset(seed=0)
            with pytest.raises(gem.UnknownHandleError, match="restarted"):
                await old.env(0).step("\\boxed{1}")
            with pytest.raises(gem.UnknownHandleError):
                await old.step(["\\boxed{1}"] * 4)
            obs, reward, *_ = await new.env(0).step("\\boxed{1}")
            assert isinstance(obs, str) and isinstance(reward, float)
            await old.close()  # a no-op
            assert (await c.stats())["client"]["handles"] == 1

    asyncio.run(asyncio.wait_for(main(), 60))


# ── a dead server is noticed quickly, idle or busy ──────────────────────────────────────────────


def test_an_idle_asyncio_client_notices_a_dead_server_within_seconds(server: Restartable) -> None:
    async def main() -> float:
        async with await aio.connect(server.endpoint) as c:  # default liveness timeout: 20 s
            env = await c.make(EASY)
            await env.reset(seed=0)
            server.kill()
            await asyncio.sleep(0.5)  # idle while it dies
            t0 = time.monotonic()
            with pytest.raises(gem.ServerUnavailableError):
                await env.step("\\boxed{1}")
            return time.monotonic() - t0

    took = asyncio.run(asyncio.wait_for(main(), 30))
    assert took < 3.0, f"the idle asyncio client needed {took:.1f} s to notice the dead server"


def test_an_idle_sync_client_notices_a_dead_server_within_seconds(server: Restartable) -> None:
    with Client(server.endpoint) as c:
        env = gem.make(EASY, client=c)
        env.reset(seed=0)
        server.kill()
        time.sleep(0.5)
        t0 = time.monotonic()
        with pytest.raises(gem.ServerUnavailableError):
            env.step("\\boxed{1}")
        assert time.monotonic() - t0 < 3.0


# ── a frozen server: liveness, then the env's state is unknown ──────────────────────────────────


def test_sync_client_frozen_server_fails_within_liveness_and_then_needs_a_reset(server: Restartable) -> None:
    with Client(server.endpoint, liveness_timeout=1.0) as c:
        env = gem.make(EASY, client=c)
        env.reset(seed=3)
        server.freeze()
        try:
            t0 = time.monotonic()
            with pytest.raises(gem.ServerUnavailableError, match="liveness"):
                env.step("\\boxed{5}")  # busy when it froze
            assert time.monotonic() - t0 < 3.0
        finally:
            server.thaw()
        # The step may or may not have run: the env's state is unknown, not guessed.
        with pytest.raises(gem.ResetNeededError, match="unknown"):
            env.step("\\boxed{5}")
        obs, _ = env.reset(seed=3)
        assert "You are playing" in obs
        assert isinstance(env.step("\\boxed{5}")[1], float)
        env.close()


def test_asyncio_client_frozen_server_fails_within_liveness_idle_or_busy_and_recovers(server: Restartable) -> None:
    async def main() -> None:
        async with await aio.connect(server.endpoint, liveness_timeout=1.0) as c:
            pool = await c.make_vec(EASY, num_envs=2, autoreset_mode="disabled")
            await pool.reset(seed=0)
            server.freeze()
            try:
                t0 = time.monotonic()
                with pytest.raises(gem.ServerUnavailableError):
                    await pool.env(0).step("\\boxed{5}")
                assert time.monotonic() - t0 < 3.0
                await asyncio.sleep(1.5)  # idle while frozen, then a call
                t0 = time.monotonic()
                with pytest.raises(gem.ServerUnavailableError):
                    await c.ping()
                assert time.monotonic() - t0 < 3.0
            finally:
                server.thaw()
            with pytest.raises(gem.ResetNeededError):
                await pool.env(0).step("\\boxed{5}")
            obs, reward, *_ = await pool.env(1).step("\\boxed{5}")  # env 1 was not touched
            assert isinstance(reward, float)
            await pool.env(0).reset(seed=0)
            assert isinstance((await pool.env(0).step("\\boxed{5}"))[1], float)

    asyncio.run(asyncio.wait_for(main(), 60))


# ── envs defined in Python survive a server restart ─────────────────────────────────────────────


class Counter(gem.Env):
    """Counts its steps."""

    def __init__(self, **kwargs):
        self.n = 0

    def reset(self, seed=None, **kwargs):
        self.n = 0
        return "0", {}

    def step(self, action):
        self.n += 1
        return str(self.n), 1.0, False, False, {}


def test_python_envs_are_registered_again_on_a_restarted_server(server: Restartable) -> None:
    with Client(server.endpoint) as c:
        gem.register("py:Counter-v0", Counter, client=c)
        old = gem.make("py:Counter-v0", client=c)
        old.reset()
        server.restart()
        _wait_connected(c)
        new = gem.make("py:Counter-v0", client=c)  # the restarted server knows the id again
        assert new.reset()[0] == "0" and new.step("x")[0] == "1"
        with pytest.raises(gem.UnknownHandleError):
            old.step("x")

    async def main() -> None:
        async with await aio.connect(server.endpoint) as a:
            await a.register("py:Counter-v0", Counter)
            server.restart()
            end = time.monotonic() + 10
            while True:
                try:
                    env = await a.make("py:Counter-v0")
                    break
                except gem.ServerUnavailableError:
                    assert time.monotonic() < end
                    await asyncio.sleep(0.1)
            await env.reset()
            assert (await env.step("x"))[0] == "1"

    asyncio.run(asyncio.wait_for(main(), 60))
