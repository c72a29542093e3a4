"""core/bench/openenv_peer.py's clients, in tiny runs: the node client (core/bench/openenvPeerClient.ts)
gets every session's reset reply and plays episodes on gem-ts's OpenEnv front door and on OpenEnv's
own server, and it plays the same sessions as the raw Python client (same seeds → same guesses →
the same episodes and rewards). Counts only, never a timing. The OpenEnv side needs the benchmark's
own venv (core/bench/.venv-openenv, made by `npm test` or the benchmark's first run): without it those
checks skip when run by hand and fail under npm test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from peer_venv_missing import skip_or_fail

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPT = BENCH / "openenv_peer.py"
OPENENV_PY = BENCH / ".venv-openenv" / "bin" / "python"
TINY = ["--seconds", "0.3", "--warmup", "0.1", "--sizes", "1,4", "--memory-sessions", "0"]

pytestmark = pytest.mark.peer


def _bench(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout, cwd=BENCH.parents[1])


def _openenv_ready() -> str:
    if not (OPENENV_PY.exists() and (BENCH / ".venv-openenv" / ".stamp").exists()):
        return "no OpenEnv peer venv (core/bench/.venv-openenv): run core/bench/openenv_peer.py once"
    probe = subprocess.run([str(OPENENV_PY), "-c", "import openenv.core.env_server, uvicorn, websockets"], capture_output=True, text=True)
    return "" if probe.returncode == 0 else f"the OpenEnv peer venv cannot import openenv: {probe.stderr.strip()[-300:]}"


def _assert_counts(figures: dict, sizes=(1, 4)) -> None:
    for n in sizes:
        r = figures[str(n)]
        assert r["sessions_reset"] == n  # every session got its reset reply (the parent also checks each one)
        # step replies came back in the window (a fraction of a second: on a busy box too few for a
        # whole episode, so episodes are counted by the fixed-length --check-clients run below)
        assert r["steps_per_s"] > 0 and r["episodes"] >= 0


def test_node_client_on_gem_ts_alone() -> None:
    run = _bench("--only", "gem-ts", "--client", "node", *TINY)
    assert run.returncode == 0, run.stderr[-3000:]
    _assert_counts(json.loads(run.stdout))
    assert "clients (node)" in run.stderr


def test_node_client_on_both_servers_writes_which_client(tmp_path: Path) -> None:
    why = _openenv_ready()
    skip_or_fail(why)
    out = tmp_path / "openenv_peer.json"
    run = _bench("--client", "node", "--out", str(out), *TINY)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["client"] == "node"
    assert "client: node" in run.stdout
    _assert_counts(results["gem-ts"])
    _assert_counts(results["openenv"])


def test_raw_and_node_clients_play_the_same_sessions() -> None:
    why = _openenv_ready()
    skip_or_fail(why)
    run = _bench("--check-clients", "25", "--sizes", "1,4", "--workers", "2")
    assert run.returncode == 0, run.stderr[-3000:]
    checks = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(checks) == {"gem-ts 1", "gem-ts 4", "openenv 1", "openenv 4"}
    for name, c in checks.items():
        n = int(name.split()[1])
        assert c["same"], name
        assert c["sessions"] == n
        for tally in c["tallies"]["node"]:
            _seed, resets, steps, episodes, _reward = tally
            assert steps == 25
            assert resets == episodes + 1  # the first reset, then one after each episode
        assert c["episodes"]["node"] == c["episodes"]["raw"] > 0
        assert c["rewards"]["node"] == c["rewards"]["raw"] > 0
