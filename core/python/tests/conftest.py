"""Shared fixtures: one gem-ts server for the session (started through the real Node CLI), and
helpers to start extra servers with their own limits."""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

# No model hub here (DESIGN §7): `datasets` and `huggingface_hub` read these when first imported, so
# they are set before any test imports them. The Hugging Face cache is an empty folder of this run,
# which hub-layout tests fill (hf_cache.py).
HF_HOME = tempfile.mkdtemp(prefix="gem-ts-hf-home-")
atexit.register(shutil.rmtree, HF_HOME, True)
os.environ.update(HF_HOME=HF_HOME, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")

import pytest  # noqa: E402

import gem_ts  # noqa: E402
from gem_ts import Client, LocalServer  # noqa: E402


SERVER_FIXTURES = {"server", "client", "strict_server", "fresh_client"}
# The quick tier's venv has no Ray (npm run test:quick installs the lint extra only), and the Ray
# modules import it at the top: without this their collection fails the whole run on a fresh clone.
if os.environ.get("GEM_TS_TEST_TIER") == "quick" and importlib.util.find_spec("ray") is None:
    collect_ignore_glob = ["test_ray_*.py"]

MODULE_TIERS = {
    "test_ray_": "ray",
    "test_wheel_": "package",
    "test_doc_snippets": "docs",
    "test_dropin_on_gem": "peer",  # runs a user file on GEM itself, in its own venv
    "test_math_verify_fixture": "peer",  # asks math-verify for 1,279 verdicts
}


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    """Tier markers, so `npm run test:quick` can leave out what needs a server, a cluster or a build."""
    for item in items:
        module = item.module.__name__ if item.module else ""
        for prefix, tier in MODULE_TIERS.items():
            if module.startswith(prefix):
                item.add_marker(tier)
        if SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker("server")


def pytest_configure(config: pytest.Config) -> None:
    # A test that starts a server some other way (gem.make on the default client, a module fixture of
    # its own) is not quick either: under GEM_TS_TEST_TIER=quick it skips where the server would start.
    if os.environ.get("GEM_TS_TEST_TIER") == "quick":

        def refuse(self: object, *args: object, **kwargs: object) -> None:
            pytest.skip("starts a gem-ts server: npm test runs it")

        LocalServer.__init__ = refuse  # type: ignore[method-assign]


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
