"""The user file of test_dropin_user_file.py is a GEM-valid file: with ``gem_ts`` replaced by ``gem``
it passes on gem-llm 0.1.0, run in GEM's peer venv (core/bench/.venv-gem) when that venv has what
GEM's modules import (datasets, requests); otherwise this check skips when run by hand, and fails
under npm test (which installs that venv), saying why."""

import os
import subprocess
from pathlib import Path

from peer_venv_missing import skip_or_fail

HERE = Path(__file__).resolve().parent
GEM_PY = HERE.parents[1] / "bench" / ".venv-gem" / "bin" / "python"


def _gem_ready() -> str:
    if not GEM_PY.exists():
        return "no GEM peer venv (core/bench/.venv-gem)"
    probe = subprocess.run([str(GEM_PY), "-c", "import gem.tools.tool_env_wrapper, gem.envs.math_env, pytest"], capture_output=True, text=True)
    return "" if probe.returncode == 0 else f"the GEM peer venv cannot import GEM's modules: {probe.stderr.strip().splitlines()[-1]}"


def test_user_file_passes_on_gem(tmp_path):
    why = _gem_ready()
    skip_or_fail(why)
    source = (HERE / "test_dropin_user_file.py").read_text()
    swapped = source.replace("gem_ts", "gem")
    assert swapped.count("from gem.") >= 7  # the imports really were swapped
    (tmp_path / "test_user_file_on_gem.py").write_text(swapped)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run(
        [str(GEM_PY), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_user_file_on_gem.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:]
    assert "7 passed" in run.stdout.splitlines()[-1], run.stdout[-500:]
