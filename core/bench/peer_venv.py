"""A benchmark peer's own venv under core/bench (GEM, OpenEnv, …), made on first use and kept while
its pins stay the same (a stamp file holds them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Sequence


def ensure_peer_venv(venv: Path, pins: Sequence[str]) -> Path:
    """The venv's python, after creating the venv and installing `pins` when the stamp differs."""
    py = venv / "bin" / "python"
    stamp = venv / ".stamp"
    want = " ".join(pins)
    if py.exists() and stamp.exists() and stamp.read_text() == want:
        return py
    if not py.exists():
        print(f"› creating {venv}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    print(f"› uv pip install {want} (first run only)", file=sys.stderr)
    _install(py, pins)
    stamp.write_text(want)
    return py


def _install(py: Path, pins: Sequence[str]) -> None:
    """uv into the venv first (one wheel), then the pins through it: a fresh OpenEnv venv took 72 s
    through pip, most of it resolving. pip's find-links, where set (a wheel cache), go to uv too."""
    pip = [str(py), "-m", "pip"]
    subprocess.run([*pip, "install", "--quiet", "--disable-pip-version-check", "uv==0.13.9"], check=True)
    links = subprocess.run([*pip, "config", "get", "global.find-links"], capture_output=True, text=True)
    find_links = [a for link in links.stdout.split() for a in ("--find-links", link)] if links.returncode == 0 else []
    uv = py.parent / "uv"
    subprocess.run([str(uv), "pip", "install", "--quiet", "--python", str(py), *find_links, *pins], check=True)
