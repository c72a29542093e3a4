"""Shared fixtures: one gem-ts server for the session (started through the real Node CLI), and
helpers to start extra servers with their own limits."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

import gem_ts
from gem_ts import Client, LocalServer


@pytest.fixture(scope="session")
def server() -> Iterator[LocalServer]:
    srv = LocalServer(["--idle-timeout-ms", "60000"])
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def client(server: LocalServer) -> Iterator[Client]:
    """The default client for gem_ts.make & co., connected to the session server."""
    c = gem_ts.connect(server.endpoint)
    yield c
    c.close()
    gem_ts.set_default_client(None)


@pytest.fixture(scope="module")
def strict_server() -> Iterator[LocalServer]:
    """A server with tight limits and a short idle timeout."""
    srv = LocalServer(
        [
            "--idle-timeout-ms",
            "600",
            "--max-message-bytes",
            "65536",
            "--max-envs-per-handle",
            "16",
            "--max-handles-per-client",
            "2",
        ]
    )
    yield srv
    srv.stop()


@pytest.fixture
def fresh_client(server: LocalServer) -> Iterator[Client]:
    """A second, independent client of the session server."""
    c = Client(server.endpoint)
    yield c
    c.close()


def repo_root() -> str:
    return os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


@pytest.fixture(scope="session")
def wheel() -> Path:
    """The gem-ts wheel, built by scripts/build-packages.mjs (once per test session)."""

    node = shutil.which("node")
    if node is None:
        pytest.skip("building the wheel needs Node (npm test installs it)")
    root = Path(__file__).resolve().parents[3]
    r = subprocess.run([node, str(root / "scripts" / "build-packages.mjs")], cwd=root, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    whl = next(line.split()[1] for line in r.stdout.splitlines() if line.startswith("✓ ") and line.split()[1].endswith(".whl"))
    return Path(whl)
