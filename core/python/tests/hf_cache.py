"""Writes a dataset into a Hugging Face cache (``HF_HOME``) as a download from the hub leaves it, so
that ``datasets.load_dataset("<org>/<name>")`` reads it with the hub switched off (``HF_HUB_OFFLINE=1``).

A download leaves two things: the repository snapshot that ``huggingface_hub`` keeps
(``hub/datasets--<org>--<name>/snapshots/<commit>/data/<split>-00000-of-00001.parquet`` and
``refs/main`` naming the commit), and the prepared Arrow cache that ``datasets`` builds from it
(``datasets/<org>___<snake name>/default/0.0.0/<commit>/``: ``dataset_info.json`` and one Arrow file per
split). Offline, ``datasets`` 5 reads the second: it cannot ask the hub which files the snapshot
holds. Both are written here with ``datasets``' own Parquet builder, as an online load would.

Runs as a script too: ``python hf_cache.py HF_HOME REPO_ID SPLIT=ROWS.jsonl …`` (for a fresh venv).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def write_hub_dataset(hf_home: Path, repo_id: str, splits: Dict[str, List[Dict[str, Any]]], commit: str = COMMIT) -> Path:
    """Caches ``splits`` (split name → rows) under ``hf_home`` as the hub dataset ``repo_id``; returns
    the prepared cache folder."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from datasets.naming import camelcase_to_snakecase
    from datasets.packaged_modules.parquet.parquet import Parquet

    org, name = repo_id.split("/")
    repo = Path(hf_home) / "hub" / f"datasets--{org}--{name}"
    snapshot = repo / "snapshots" / commit
    (snapshot / "data").mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    files = {}
    for split, rows in splits.items():
        path = snapshot / "data" / f"{split}-00000-of-00001.parquet"
        pq.write_table(pa.Table.from_pylist(rows), str(path))
        files[split] = [str(path)]
    snake = camelcase_to_snakecase(name)
    with tempfile.TemporaryDirectory() as build:
        builder = Parquet(cache_dir=build, dataset_name=snake, config_name="default", config_id="default", hash=commit, data_files=files)
        builder.download_and_prepare()
        prepared = Path(hf_home) / "datasets" / f"{org}___{snake}"
        shutil.copytree(Path(build) / snake, prepared, ignore=shutil.ignore_patterns("*.lock"), dirs_exist_ok=True)
    return prepared / "default" / "0.0.0" / commit


if __name__ == "__main__":
    home, repo_id, *pairs = sys.argv[1:]
    data = {}
    for pair in pairs:
        split, path = pair.split("=", 1)
        data[split] = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    os.environ.setdefault("HF_HOME", home)
    print(write_hub_dataset(Path(home), repo_id, data))
