"""core/bench/transport_rtt.py in a tiny run: each of the four transports (ZeroMQ and stream, ipc and
tcp) echoes every message through the real server transport and client link, round after round.
Counts only, never a timing: the bench itself checks every reply came back whole."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

pytestmark = pytest.mark.server


def test_every_transport_echoes_every_round(tmp_path: Path) -> None:
    out = tmp_path / "rtt.json"
    run = subprocess.run(
        [sys.executable, str(BENCH / "transport_rtt.py"), "--count", "200", "--rounds", "2", "--out", str(out)],
        capture_output=True, text=True, timeout=180, cwd=BENCH.parents[1],
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert len(result["rounds"]) == 2
    for row in result["rounds"]:
        assert sorted(row) == ["stream ipc", "stream tcp", "zmq ipc", "zmq tcp"]
        assert all(v["p50_us"] > 0 and v["p99_us"] >= v["p50_us"] for v in row.values())
    assert set(result["zmq_over_stream_p50"]) == {"ipc", "tcp"}
