"""Issue 29's first line of a GEM user, from the wheel: in a fresh venv holding only the gem-ts wheel
and Hugging Face ``datasets``, a GEM script that makes ``math:GSM8K``, ``code:CodeContest`` and
``qa:NaturalQuestions`` runs unchanged against datasets in the local hub cache, with the hub off.
The wheel is the session's (conftest.py ``wheel``, built once with test_wheel_install.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, Iterator

import pytest

from test_hub_datasets import HUB_DATA
from test_wheel_install import _scratch_parent, install_user_venv

pytestmark = pytest.mark.timeout(900)

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def hub_user(wheel: Path) -> Iterator[Dict[str, object]]:
    home = Path(tempfile.mkdtemp(prefix="gem-ts-wheel-hub-", dir=_scratch_parent()))
    try:
        wheel = Path(shutil.copy(wheel, home))  # a build elsewhere may replace core/.packages meanwhile
        _, py, path = install_user_venv(home, wheel, "datasets")
        hf_home = home / "hf"
        env = {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8", "HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
        # The user's own datasets, written into the cache by the venv's datasets (as a download would).
        for repo_id, splits in HUB_DATA.items():
            pairs = []
            for split, rows in splits.items():
                path = home / f"{repo_id.replace('/', '_')}-{split}.jsonl"
                path.write_text("".join(json.dumps(r) + "\n" for r in rows))
                pairs.append(f"{split}={path}")
            r = subprocess.run([str(py), str(HERE / "hf_cache.py"), str(hf_home), repo_id, *pairs], env=env, capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stdout + r.stderr
        work = home / "project"
        work.mkdir()
        yield {"py": py, "env": env, "cwd": work}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_a_gem_script_over_hub_datasets_runs_from_the_wheel_with_the_hub_off(hub_user: Dict[str, object]) -> None:
    r = subprocess.run(
        [str(hub_user["py"]), str(HERE / "wheel" / "gem_hub_script.py")],
        cwd=hub_user["cwd"],  # type: ignore[arg-type]
        env=hub_user["env"],  # type: ignore[arg-type]
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout.strip().splitlines()[-1])
    for env_id in ("math:GSM8K", "code:CodeContest", "qa:NaturalQuestions"):
        assert report[env_id]["reward"] == 1.0, (env_id, report[env_id], r.stderr[-2000:])
        assert report[env_id]["dataset"] == "datasets.arrow_dataset.Dataset"
    assert report["vector"] == ["What is 6 times 7?"] * 2
