"""Runs NeMo Gym 0.7's own servers the way its launcher does: each server a process of its own, started
with the resolved global config in NEMO_GYM_CONFIG_DICT and its name in NEMO_GYM_CONFIG_PATH, then
`run_webserver()`. The resources server is gem_ts_nemo_gym's; the agent is nemo-gym's unmodified
`responses_api_agents/simple_agent/app.py`; the model server is the scripted stub in this process.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import requests
import responses_api_agents.simple_agent.app as simple_agent_app

RESOURCES = "gem_ts_resources"
AGENT = "gem_ts_simple_agent"
MODEL = "policy_model"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def global_config(model_port: int, max_steps: Optional[int] = None) -> Dict[str, Any]:
    host = "127.0.0.1"
    agent: Dict[str, Any] = {
        "entrypoint": "app.py", "host": host, "port": free_port(),
        "resources_server": {"type": "resources_servers", "name": RESOURCES},
        "model_server": {"type": "responses_api_models", "name": MODEL},
    }  # fmt: skip
    if max_steps is not None:
        agent["max_steps"] = max_steps
    return {
        "head_server": {"host": host, "port": free_port()},
        "dry_run": False,
        RESOURCES: {"resources_servers": {"gem_ts": {"entrypoint": "app.py", "host": host, "port": free_port(), "domain": "games"}}},
        MODEL: {"responses_api_models": {"stub": {"entrypoint": "app.py", "host": host, "port": model_port}}},
        AGENT: {"responses_api_agents": {"simple_agent": agent}},
    }


def _server(cfg: Dict[str, Any], name: str) -> Dict[str, Any]:
    (inner,) = cfg[name].values()
    (server,) = inner.values()
    return server


class Servers:
    """The resources server and nemo-gym's simple agent, as child processes; stop() ends both."""

    def __init__(self, cfg: Dict[str, Any], log_dir: Path):
        self.cfg = cfg
        self.procs: List[subprocess.Popen] = []
        self.logs: Dict[str, Path] = {}
        agent_script = Path(simple_agent_app.__file__)
        for name, argv in ((RESOURCES, [sys.executable, "-m", "gem_ts_nemo_gym.app"]), (AGENT, [sys.executable, str(agent_script)])):
            env = {**os.environ, "NEMO_GYM_CONFIG_DICT": json.dumps(cfg), "NEMO_GYM_CONFIG_PATH": name}
            log = log_dir / f"{name}.log"
            self.logs[name] = log
            self.procs.append(subprocess.Popen(argv, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT))
        try:
            for name in (RESOURCES, AGENT):
                self._wait(name)
        except BaseException:
            self.stop()
            raise

    def url(self, name: str) -> str:
        s = _server(self.cfg, name)
        return f"http://{s['host']}:{s['port']}"

    def _wait(self, name: str, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.procs):
                raise RuntimeError(f"a server exited early:\n{self.read_logs()}")
            try:
                if requests.get(self.url(name) + "/health", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"{name} did not come up in {timeout}s:\n{self.read_logs()}")

    def read_logs(self) -> str:
        return "\n".join(f"--- {n}\n{p.read_text()[-4000:]}" for n, p in self.logs.items() if p.exists())

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
