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
    print(f"› pip install {want} (first run only)", file=sys.stderr)
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins], check=True)
    stamp.write_text(want)
    return py
