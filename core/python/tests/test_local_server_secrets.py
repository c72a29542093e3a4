"""Issue 27: what a server started by gem_ts may read, and where its secret travels.

The auth token never appears on the server's command line (``ps`` shows every user every process's
argv) nor in its environment (inherited by whatever it starts): it goes through an inherited pipe.
Checked on the real Node process, by its /proc entries, while it serves, for LocalServer and for the
Ray pool's actor (its launch method, without a Ray cluster). A server on this process's private ipc
socket reads the files the process could; one on tcp reads none unless given data dirs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import gem_ts as gem
from gem_ts import Client, LocalServer

TOKEN = "-s3cret-token-that-starts-like-a-flag"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _proc(pid: int, entry: str) -> bytes:
    return Path(f"/proc/{pid}/{entry}").read_bytes()


def _assert_token_hidden(srv: LocalServer) -> None:
    assert srv.alive()
    argv = _proc(srv.proc.pid, "cmdline").split(b"\0")
    assert b"serve" in argv  # the real server process, not a wrapper
    assert not any(TOKEN.encode() in a for a in argv), argv
    assert TOKEN.encode() not in _proc(srv.proc.pid, "environ")


def _assert_token_required(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEM_TS_TOKEN", raising=False)
    with pytest.raises(gem.UnauthorizedError):
        Client(endpoint, heartbeat=False)
    with Client(endpoint, token=TOKEN, heartbeat=False) as c:
        assert c.ping() >= 0


@pytest.mark.parametrize("how", ["auth_token", "argv"])
def test_the_token_is_off_the_command_line_and_environment(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The argv form as the Ray actor wrote it before: gem_ts moves it to the pipe.
    srv = LocalServer(auth_token=TOKEN) if how == "auth_token" else LocalServer([f"--auth-token={TOKEN}"])
    try:
        _assert_token_hidden(srv)
        _assert_token_required(srv.endpoint, monkeypatch)
    finally:
        srv.stop()


def test_the_ray_actor_launches_its_server_without_the_token_on_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    from gem_ts.ray.server_actor import EnvServer

    actor = SimpleNamespace(server_args=["--log-level", "warn"], host="127.0.0.1", token=TOKEN)
    srv = EnvServer._launch(actor, 0)  # type: ignore[arg-type]
    try:
        assert srv.endpoint.startswith("tcp://127.0.0.1:")
        _assert_token_hidden(srv)
        _assert_token_required(srv.endpoint, monkeypatch)
    finally:
        srv.stop()


def _first_problem(endpoint: str, dataset: str) -> str:
    with Client(endpoint, heartbeat=False) as c:
        env = gem.make("math:GSM8K", dataset=dataset, client=c)
        try:
            return str(env.reset(seed=0)[0])
        finally:
            env.close()


def test_files_a_private_local_server_reads_and_a_tcp_one_does_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEM_TS_DATA_DIR", raising=False)
    data = tmp_path / "mine.jsonl"
    data.write_text(json.dumps({"problem": "marker-problem", "answer": "1"}) + "\n")
    with LocalServer() as private:
        assert "marker-problem" in _first_problem(private.endpoint, str(data))
    for tcp_endpoint in ("tcp://127.0.0.1:0", "stream+tcp://127.0.0.1:0"):
        with LocalServer(endpoint=tcp_endpoint) as tcp:
            with pytest.raises(gem.GemError) as e:
                _first_problem(tcp.endpoint, str(data))
            assert e.value.code == "DATASET_MISSING"
    with LocalServer(endpoint="tcp://127.0.0.1:0", data_dirs=[str(tmp_path)]) as allowed:
        assert "marker-problem" in _first_problem(allowed.endpoint, str(data))
