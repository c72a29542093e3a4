"""Shipping gem-ts to Ray nodes that do not have it: `EnvServerPool(runtime_env={"pip": [wheel]})`.

The "node" Python here is a venv that sees every package of the test venv (Ray, pyzmq, pyarrow, …)
except gem-ts itself, so a Ray worker started with it cannot import gem_ts. The driver (a script run
with that Python) imports gem_ts from the checkout through its own sys.path only, which Ray workers
do not inherit. Without a runtime env the pool cannot start; with the wheel as its runtime env, the
registry and the servers run from the wheel Ray installed, and serve."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

import gem_ts

pytest.importorskip("ray")

# A fresh Ray cluster plus Ray's own pip install of the wheel: minutes on a busy machine.
pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[3]

DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])  # gem_ts for this driver only: Ray workers do not get it
import ray
import gem_ts
from gem_ts.ray import EnvServerPool

mode, wheel = sys.argv[2], sys.argv[3]
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
runtime_env = {"pip": [wheel]} if mode == "shipped" else None
out = {}
try:
    pool = EnvServerPool("shipped", num_cpus=1, runtime_env=runtime_env)
    (server,) = pool.wait_ready(count=1, timeout=float(sys.argv[4]))
    info = pool.health()[0]
    with gem_ts.Client(server["endpoint"], token=pool.token, heartbeat=False) as c:
        env = gem_ts.make("game:GuessTheNumber-v0-easy", client=c)
        first, _ = env.reset(seed=3)
        out["played"] = [first, *env.step("\\boxed{5}")[:3]]
    out.update(package=info["package"], server_command=info["server_command"], ping_ms=info["ping_ms"])
    pool.shutdown()
except Exception as err:
    out["error"] = f"{type(err).__name__}: {err}"
print("RESULT " + json.dumps(out))
ray.shutdown()
"""


@pytest.fixture(scope="module")
def node_python() -> Iterator[Path]:
    """A venv whose site-packages are the test venv's minus gem-ts (a filtered view of symlinks)."""
    home = Path(tempfile.mkdtemp(prefix="gem-ts-ray-node-", dir="/var/tmp" if os.access("/var/tmp", os.W_OK) else None))
    try:
        view = home / "site-without-gem-ts"
        view.mkdir()
        for source in site.getsitepackages():
            for entry in Path(source).iterdir():
                name = entry.name.lower()
                if "gem_ts" in name or "gem-ts" in name or (view / entry.name).exists():
                    continue
                (view / entry.name).symlink_to(entry)
        venv = home / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        py = venv / "bin" / "python"
        purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        # A .pth line adds the folder to sys.path; .pth files inside it (gem-ts's editable finder
        # among them, were it there) are not run.
        Path(purelib, "parent-site.pth").write_text(f"{view}\n")
        probe = subprocess.run([str(py), "-c", "import ray, zmq, pyarrow, pip\ntry:\n import gem_ts\nexcept ImportError:\n print('no gem_ts')"],
                               capture_output=True, text=True, timeout=120, cwd=home)
        assert probe.stdout.strip() == "no gem_ts", probe.stdout + probe.stderr
        yield py
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _drive(node_python: Path, mode: str, wheel: Path, wait_s: float) -> dict:
    work = Path(tempfile.mkdtemp(prefix="gem-ts-ray-driver-"))
    try:
        script = work / "driver.py"
        script.write_text(DRIVER)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GEM_TS_", "RAY_"))}
        env.pop("PYTHONPATH", None)
        r = subprocess.run([str(node_python), str(script), str(ROOT / "core" / "python"), mode, str(wheel), str(wait_s)],
                           capture_output=True, text=True, timeout=800, cwd=work, env=env)
        line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")), None)
        assert line is not None, f"driver printed no result (rc {r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        return dict(json.loads(line[len("RESULT "):]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_without_the_wheel_the_nodes_cannot_run_a_pool(node_python: Path, wheel: Path) -> None:
    out = _drive(node_python, "bare", wheel, wait_s=45)
    assert "error" in out and "played" not in out, out  # the control: the nodes really lack gem-ts


def test_the_wheel_shipped_by_a_runtime_env_runs_the_pool(node_python: Path, wheel: Path, client: "gem_ts.Client") -> None:
    out = _drive(node_python, "shipped", wheel, wait_s=600)
    assert "error" not in out, out
    # Registry and servers imported gem_ts from the wheel Ray installed for them, not the checkout,
    # and the Node server they started is the compiled one inside that wheel.
    assert "runtime_resources" in out["package"] and str(ROOT) not in out["package"], out
    assert any("_server" in part and "runtime_resources" in part for part in out["server_command"]), out
    env = gem_ts.make("game:GuessTheNumber-v0-easy", client=client)  # the same on the checkout's server
    first, _ = env.reset(seed=3)
    assert out["played"] == [first, *env.step("\\boxed{5}")[:3]]
