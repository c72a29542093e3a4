"""core/bench/wire_throughput.py's trainer paths in a tiny run (`flavours`): one env each way, the
coroutines on sub-envs and on their own envs, and the bare-asyncio floor. Counts only, never a timing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"

pytestmark = pytest.mark.server


def _module():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))  # its sibling peer_venv.py
    spec = importlib.util.spec_from_file_location("wire_throughput", BENCH / "wire_throughput.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_trainer_path_steps_and_is_described(server) -> None:
    bench = _module()
    out = bench.flavours(server.endpoint, seconds=0.3, agents=8, count=40)
    assert out["sync_env"]["count"] == 40 and out["aio_env"]["count"] == 40
    assert 0 < out["aio_own_envs_resets_per_step"] <= 1  # GuessTheNumber-easy ends within 4 turns
    for key in ("make_vec_batch_env_steps_per_s", "aio_coroutines_env_steps_per_s", "aio_own_envs_env_steps_per_s"):
        assert out[key] > 0, key
    for floor in ("bare_asyncio_floor", "bare_asyncio_floor_woken_in_turn"):
        assert out[floor]["steps_per_s"] > 0 and out[floor]["cpu_us_per_step"] > 0
    assert "bare asyncio" in bench.describe_flavours(out)
