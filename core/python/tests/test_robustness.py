"""Bad days: clients that die, servers that die, limits, silence. Nothing may hang."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import gem_ts as gem
from gem_ts import Client, LocalServer

EASY = "game:GuessTheNumber-v0-easy"


def wait_until(pred, timeout: float = 10.0, every: float = 0.1) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(every)
    return False


def test_a_client_killed_mid_episode_has_its_envs_freed(strict_server: LocalServer) -> None:
    script = textwrap.dedent(
        f"""
        import time, gem_ts as gem
        envs = gem.make_vec({EASY!r}, num_envs=8)
        envs.reset(seed=1)
        envs.step(["\\\\boxed{{5}}"] * 8)
        print("ready", flush=True)
        time.sleep(60)
        """
    )
    env = {**os.environ, "GEM_TS_ENDPOINT": strict_server.endpoint}
    child = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        with Client(strict_server.endpoint) as watcher:
            assert watcher.stats()["server"]["envs"] >= 8
            time.sleep(1.5)  # longer than the idle timeout: the child's heartbeat keeps its envs
            assert watcher.stats()["server"]["envs"] >= 8
            child.send_signal(signal.SIGKILL)
            child.wait(10)
            assert wait_until(lambda: watcher.stats()["server"]["envs"] == 0)
    finally:
        if child.poll() is None:
            child.kill()


def test_an_idle_client_keeps_its_envs_through_heartbeats(strict_server: LocalServer) -> None:
    with Client(strict_server.endpoint) as c:
        envs = gem.make_vec(EASY, num_envs=2, client=c)
        envs.reset(seed=0)
        time.sleep(2.0)  # > 3 idle timeouts with no call from us
        obs, *_ = envs.step(["\\boxed{1}", "\\boxed{2}"])
        assert len(obs) == 2


def _killer_env_class(pid_holder):
    class KillsTheServer(gem.Env):
        def reset(self, seed=None, **kwargs):
            return "start", {}

        def step(self, action):
            os.kill(pid_holder(), signal.SIGKILL)  # the server dies while this step is in flight
            time.sleep(0.3)
            return "never delivered", 0.0, False, False, {}

    return KillsTheServer


def test_server_killed_mid_request_raises_for_a_local_server() -> None:
    c = Client(liveness_timeout=5.0)
    try:
        gem.register("py:KillServerLocal-v0", _killer_env_class(lambda: c.local_server.proc.pid), client=c)
        env = gem.make("py:KillServerLocal-v0", client=c)
        env.reset()
        t0 = time.monotonic()
        with pytest.raises(gem.ServerUnavailableError) as e:
            env.step("x")
        assert time.monotonic() - t0 < 5.0
        assert e.value.code == "SERVER_UNAVAILABLE" and "exited" in str(e.value)
        with pytest.raises(gem.ServerUnavailableError):  # and the next call fails at once too
            env.reset()
    finally:
        c.close()


def test_server_killed_mid_request_raises_for_a_remote_server() -> None:
    srv = LocalServer()
    try:
        c = Client(srv.endpoint, liveness_timeout=5.0)
        gem.register("py:KillServerRemote-v0", _killer_env_class(lambda: srv.proc.pid), client=c)
        env = gem.make("py:KillServerRemote-v0", client=c)
        env.reset()
        t0 = time.monotonic()
        with pytest.raises(ConnectionError) as e:  # ServerUnavailableError is a ConnectionError
            env.step("x")
        assert time.monotonic() - t0 < 6.0
        assert isinstance(e.value, gem.GemError) and e.value.code == "SERVER_UNAVAILABLE"
        c.close()
    finally:
        srv.stop()


def test_no_server_at_the_endpoint_raises_within_the_liveness_timeout(tmp_path) -> None:
    t0 = time.monotonic()
    with pytest.raises(gem.ServerUnavailableError):
        Client(f"ipc://{tmp_path}/nobody.sock", liveness_timeout=1.0)
    assert time.monotonic() - t0 < 4.0


def test_limits_are_announced_and_enforced(strict_server: LocalServer) -> None:
    with Client(strict_server.endpoint) as c:
        assert c.limits["max_envs_per_handle"] == 16 and c.limits["max_message_bytes"] == 65536
        with pytest.raises(gem.LimitExceededError) as e:
            gem.make_vec(EASY, num_envs=17, client=c)
        assert e.value.code == "LIMIT_EXCEEDED" and e.value.data["limit"] == "max_envs_per_handle"
        a = gem.make_vec(EASY, num_envs=1, client=c)
        b = gem.make_vec(EASY, num_envs=1, client=c)
        with pytest.raises(gem.LimitExceededError):
            gem.make_vec(EASY, num_envs=1, client=c)
        a.reset()
        with pytest.raises(gem.LimitExceededError) as e:
            a.step(["x" * 100_000])
        assert e.value.code == "MESSAGE_TOO_LARGE"
        assert a.step(["\\boxed{1}"])[1].shape == (1,)  # and the connection still works
        a.close()
        b.close()


def test_a_request_timeout_raises_instead_of_waiting_forever() -> None:
    with LocalServer() as srv, Client(srv.endpoint, timeout=0.3) as impatient:
        env = gem.make(EASY, client=impatient)
        os.kill(srv.proc.pid, signal.SIGSTOP)  # a server that never answers, but keeps the connection
        try:
            t0 = time.monotonic()
            with pytest.raises(gem.RequestTimeoutError) as e:
                env.reset()
            assert time.monotonic() - t0 < 2.0
        finally:
            os.kill(srv.proc.pid, signal.SIGCONT)
        assert e.value.code == "TIMEOUT" and isinstance(e.value, TimeoutError)
