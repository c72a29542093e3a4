"""core/bench/plot_throughput.py: the curves it draws from the committed benchmark results."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module():
    spec = importlib.util.spec_from_file_location("plot_throughput", BENCH / "plot_throughput.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_curves_from_the_committed_results_keep_every_measured_point(tmp_path: Path) -> None:
    plot = _module()
    wire = json.loads((BENCH / "results" / "wire_throughput.json").read_text())
    openenv = json.loads((BENCH / "results" / "openenv_peer.json").read_text())
    curves = plot.series(wire, openenv)
    batch = curves["gem-ts batch (make_vec, ipc)"]
    assert [n for n, _ in batch] == sorted(int(n) for n in wire["env_steps_per_s"]["gem_ts_ipc"])
    assert dict(batch)[1024] == wire["env_steps_per_s"]["gem_ts_ipc"]["1024"]
    assert len(curves["OpenEnv server (WebSocket sessions)"]) == len([k for k in openenv["openenv"] if k.isdigit()])
    out = tmp_path / "throughput.png"
    plot.plot(curves, out, "test")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_asyncio_curve_joins_one_env_to_the_coroutines_and_missing_parts_drop_out() -> None:
    plot = _module()
    wire = {
        "env_steps_per_s": {"gem_ts_ipc": {"1": 5.0, "64": 50.0}, "gem_sync": {"1": 7.0}, "gem_async": {}},
        "trainer_paths_tcp": {"agents": 256, "aio_env": {"steps_per_s": 1000.0}, "aio_own_envs_env_steps_per_s": 9000.0},
    }
    curves = plot.series(wire, {})
    assert curves["gem-ts asyncio, one env per coroutine (tcp)"] == [(1, 1000.0), (256, 9000.0)]
    assert "GEM AsyncVectorEnv (in-process)" not in curves  # no points measured, no curve
    assert not any("OpenEnv" in name for name in curves)


def test_an_aio_only_run_gives_the_asyncio_curve_its_last_round() -> None:
    plot = _module()
    wire = {
        "env_steps_per_s": {"gem_ts_ipc": {"1": 5.0}, "gem_sync": {}, "gem_async": {}},
        "trainer_paths_tcp": {"agents": 256, "aio_env": {"steps_per_s": 1000.0}, "aio_own_envs_env_steps_per_s": 9000.0},
    }
    round_ = {"agents": 256, "aio_env": {"steps_per_s": 4000.0}, "aio_own_envs_env_steps_per_s": 100000.0}
    aio = {"trainer_paths_tcp_each_round": [{**round_, "aio_own_envs_env_steps_per_s": 1.0}, round_]}
    assert plot.series(wire, {}, aio)["gem-ts asyncio, one env per coroutine (tcp)"] == [(1, 4000.0), (256, 100000.0)]
    assert plot.series(wire, {}, {})["gem-ts asyncio, one env per coroutine (tcp)"] == [(1, 1000.0), (256, 9000.0)]
