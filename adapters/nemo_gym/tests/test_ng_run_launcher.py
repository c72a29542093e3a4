"""NeMo Gym's own launcher, ``ng_run`` (``gym env start``) with a Hydra config file, starting the
gem_ts resources server, nemo-gym's simple agent and a scripted model server, all offline: each
server's venv is this adapter venv, named under ``uv_venv_dir`` and reused with
``skip_venv_if_present`` (so no ``uv pip install`` runs). Episodes are then posted to the agent the
launcher started, and counted; Ctrl-C (SIGINT) to the launcher stops every server it started."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
from gem_ts_nemo_gym import dataset_rows
from harness import AGENT, MODEL, RESOURCES, free_port
from test_rollouts import GAME, run_rows

TESTS = Path(__file__).resolve().parent
PACKAGE_APP = TESTS.parent / "gem_ts_nemo_gym" / "app.py"
NG_RUN = Path(sys.executable).parent / "ng_run"
READY = "servers ready! Polling"

STUB_APP = """import sys, time
sys.path.insert(0, {tests!r})
from stub_model import StubResponsesModel
from test_rollouts import bisect
model = StubResponsesModel(bisect, port={port})
while True:
    time.sleep(3600)
"""


def _layout(root: Path, model_port: int) -> None:
    """Server dirs the launcher finds from its cwd, and each server's venv (this one) under uv_venv_dir."""
    (root / "resources_servers" / "gem_ts").mkdir(parents=True)
    (root / "resources_servers" / "gem_ts" / "app.py").symlink_to(PACKAGE_APP)
    (root / "responses_api_models" / "stub").mkdir(parents=True)
    (root / "responses_api_models" / "stub" / "app.py").write_text(STUB_APP.format(tests=str(TESTS), port=model_port))
    for server_dir in ("resources_servers/gem_ts", "responses_api_models/stub"):
        (root / server_dir / "requirements.txt").write_text("")
    # The simple agent and the legacy environment server the launcher adds are nemo-gym's own dirs.
    for server_dir in ("resources_servers/gem_ts", "responses_api_models/stub", "responses_api_agents/simple_agent", "environment_servers/legacy_agent"):
        venv = root / "venvs" / server_dir / ".venv"
        venv.parent.mkdir(parents=True, exist_ok=True)
        venv.symlink_to(Path(sys.prefix))


def _config(root: Path, model_port: int) -> Dict[str, Any]:
    host = "127.0.0.1"
    return {
        "head_server": {"host": host, "port": free_port()},
        "skip_venv_if_present": True,
        "uv_venv_dir": str(root / "venvs"),
        "uv_cache_dir": str(root / "uv_cache"),
        RESOURCES: {"resources_servers": {"gem_ts": {"entrypoint": "app.py", "domain": "games", "host": host, "port": free_port()}}},
        AGENT: {"responses_api_agents": {"simple_agent": {
            "entrypoint": "app.py", "host": host, "port": free_port(),
            "resources_server": {"type": "resources_servers", "name": RESOURCES},
            "model_server": {"type": "responses_api_models", "name": MODEL},
        }}},
        MODEL: {"responses_api_models": {"stub": {"entrypoint": "app.py", "host": host, "port": model_port}}},
    }  # fmt: skip


def _yaml(cfg: Dict[str, Any]) -> str:
    from omegaconf import OmegaConf

    return OmegaConf.to_yaml(OmegaConf.create(cfg))


@pytest.mark.skipif(not NG_RUN.exists(), reason="nemo-gym's ng_run is not installed in this venv")
def test_ng_run_starts_gem_ts_from_a_config_and_its_agent_plays_episodes(tmp_path: Path) -> None:
    model_port = free_port()
    _layout(tmp_path, model_port)
    cfg = _config(tmp_path, model_port)
    (tmp_path / "gem_ts.yaml").write_text(_yaml(cfg))
    log = tmp_path / "ng_run.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(NG_RUN), f"+config_paths=[{tmp_path / 'gem_ts.yaml'}]"],
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            env={**{k: v for k, v in os.environ.items() if not k.startswith("NEMO_GYM_")}, "RAY_USAGE_STATS_ENABLED": "0"},
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while READY not in log.read_text():
            assert proc.poll() is None, f"ng_run exited ({proc.returncode}):\n{log.read_text()[-4000:]}"
            assert time.monotonic() < deadline, f"ng_run's servers were not ready in 300 s:\n{log.read_text()[-4000:]}"
            time.sleep(0.5)
        text = log.read_text()
        assert "Starting `gem_ts_resources` from venv " + str(tmp_path / "venvs" / "resources_servers" / "gem_ts" / ".venv") in text
        assert "uv pip install" not in text
        seeds = [0, 1, 2]
        results = run_rows(cfg, dataset_rows(GAME, seeds))
        episodes = [res for status, res in results if status == 200]
        assert len(episodes) == 3, f"{results}\n{text[-4000:]}"
        assert [res["seed"] for res in episodes] == seeds
        assert all(res["terminated"] and res["reward"] == 1.0 for res in episodes)  # bisection wins in 4 guesses
        assert all(1 <= res["steps"] <= 4 for res in episodes)
    finally:
        # Ctrl-C, as a user stops the launcher; whatever it started and did not stop is killed by pid.
        started = _descendants(proc.pid)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        # Its servers end on their own once it has signalled them; give them a moment, then kill by pid.
        deadline = time.monotonic() + 60
        while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = [f"{pid} {_command(pid)}" for pid in started if _alive(pid)]
        for pid in started:
            _kill(pid)
    assert "NeMo Gym finished!" in log.read_text(), log.read_text()[-3000:]
    # No `nemo_gym_log_dir` in the config: with it, each server runs piped through `tee`, and in two runs
    # here the servers and their tee outlived Ctrl-C (the launcher reported "NeMo Gym finished!").
    assert left == [], f"processes the launcher left running: {left}"


def _descendants(root: int) -> List[int]:
    """Every process below `root` (the launcher's servers, Ray's daemons), by pid."""
    children: Dict[int, List[int]] = {}
    for line in subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True, check=True).stdout.splitlines():
        pid, ppid = (int(x) for x in line.split())
        children.setdefault(ppid, []).append(pid)
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _command(pid: int) -> str:
    return subprocess.run(["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()[:160]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _kill(pid: int) -> bool:
    """Kills `pid` if it still runs; whether it did."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True
