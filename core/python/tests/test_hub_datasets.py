"""GEM's task datasets load as GEM loads them: with no data on the server, gem_ts calls
``datasets.load_dataset(<GEM's hub name>)`` here, pushes the table and makes the env. The hub is
switched off (conftest.py); the data sits in the Hugging Face cache as a download leaves it
(hf_cache.py), which is what ``datasets`` reads offline."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import gem_ts as gem
import gem_ts.client as gem_client
from gem_ts import hub

datasets = pytest.importorskip("datasets", reason="datasets comes with scripts/requirements/tasks.txt")

from hf_cache import write_hub_dataset  # noqa: E402

SCRIPT = Path(__file__).resolve().parent / "wheel" / "gem_hub_script.py"

#: GEM's hub names (reference/gem.md §2.3-2.6) with a few rows in each one's columns.
HUB_DATA: Dict[str, Dict[str, List[Dict[str, Any]]]] = {
    "axon-rl/GSM-8k": {
        "train": [
            {"problem": "Natalia sold 48 clips in April and half as many in May. How many clips did she sell?", "answer": "72"},
            {"problem": "What is 6 times 7?", "answer": "42"},
        ]
    },
    "axon-rl/CodeContest": {
        # GEM's tests column: a dict of inputs and outputs (an Arrow struct here; a JSON string works too).
        "train": [{"problem": "Read two integers and print their sum.", "tests": {"inputs": ["1 2\n", "10 -3\n"], "outputs": ["3\n", "7\n"]}}],
        "test": [{"problem": "Print the input back.", "tests": {"inputs": ["hi\n"], "outputs": ["hi\n"]}}],
    },
    "axon-rl/NaturalQuestions": {"train": [{"problem": "who wrote the declaration of independence", "answer": ["Thomas Jefferson"]}]},
    # Bigger than strict_server's 64 KiB messages.
    "axon-rl/ORZ-57k": {"train": [{"problem": f"What is {i} + {i}? " + "Think it over. " * 20, "answer": str(2 * i)} for i in range(300)]},
}


@pytest.fixture(scope="module")
def hub_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An HF_HOME of this module's own (datasets read its path at import: the in-process tests point
    datasets' cache at it), so no other test finds these datasets."""
    home = tmp_path_factory.mktemp("hf-home")
    for repo_id, splits in HUB_DATA.items():
        write_hub_dataset(home, repo_id, splits)
    saved = datasets.config.HF_DATASETS_CACHE
    datasets.config.HF_DATASETS_CACHE = home / "datasets"
    yield str(home)
    datasets.config.HF_DATASETS_CACHE = saved


@pytest.fixture(scope="module")
def client(server, hub_cache) -> Iterator[gem.Client]:
    """This module's own default client: the tables it pushes leave with its session, and the
    process's loaded copies with the module."""
    before = gem_client._default if gem_client._default is not None and not gem_client._default.closed else None
    own = gem.connect(server.endpoint)
    yield own
    own.close()
    gem.set_default_client(before)
    hub._cache.clear()


def test_the_cache_layout_is_what_load_dataset_reads_with_the_hub_off(hub_cache):
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    loaded = datasets.load_dataset("axon-rl/CodeContest")
    assert sorted(loaded.keys()) == ["test", "train"]
    assert datasets.load_dataset("axon-rl/GSM-8k", split="train")[1] == HUB_DATA["axon-rl/GSM-8k"]["train"][1]


def test_a_gem_script_runs_unchanged_against_the_hub_cache(hub_cache, server):
    env = {**os.environ, "GEM_TS_ENDPOINT": server.endpoint, "HF_HOME": hub_cache}
    r = subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    report = json.loads(r.stdout.strip().splitlines()[-1])
    for env_id in ("math:GSM8K", "code:CodeContest", "qa:NaturalQuestions"):
        assert report[env_id]["reward"] == 1.0 and report[env_id]["terminated"], (env_id, report[env_id])
        assert report[env_id]["dataset"] == "datasets.arrow_dataset.Dataset"  # env.dataset as GEM's envs hold it
    assert report["math:GSM8K"]["observation"].startswith("Natalia sold 48 clips")
    assert "who wrote the declaration of independence" in report["qa:NaturalQuestions"]["observation"]
    assert report["vector"] == ["What is 6 times 7?"] * 2


def test_loaded_once_per_process_and_pushed_to_each_session_that_lacks_it(hub_cache, client, fresh_client, monkeypatch):
    env = gem.make("eval:CodeContest")  # the test split of axon-rl/CodeContest
    obs, _ = env.reset()
    assert obs == "Print the input back."
    assert env.step("```python\nprint(input())\n```")[1] == 1.0
    env.close()
    assert ("axon-rl/CodeContest", "test", None) in hub._cache

    def no_second_load(*a: Any, **k: Any) -> None:
        raise AssertionError("loaded from the hub again")

    monkeypatch.setattr(datasets, "load_dataset", no_second_load)
    gem.make("eval:CodeContest").close()  # the server has it for this session: nothing is pushed
    other = gem.make("eval:CodeContest", client=fresh_client)  # another session: pushed from this process's copy
    assert other.reset()[0] == "Print the input back."
    other.close()


def test_the_asyncio_client_loads_hub_data_too(hub_cache, server):
    from gem_ts import aio

    async def main() -> Any:
        async with await aio.connect(server.endpoint) as c:
            env = await c.make("math:GSM8K")
            obs, _ = await env.reset(options={"idx": 1})
            reward = (await env.step("\\boxed{42}"))[1]
            await env.close()
            return obs, reward

    assert asyncio.run(main()) == ("What is 6 times 7?", 1.0)


def test_a_revision_is_asked_of_the_hub_and_kept_apart(hub_cache, client, monkeypatch):
    asked: List[Dict[str, Any]] = []
    real = datasets.load_dataset

    def recording(*a: Any, **k: Any) -> Any:
        asked.append(k)
        return real(*a, **k)

    monkeypatch.setattr(datasets, "load_dataset", recording)
    env = gem.make("math:GSM8K", revision="v1.0")
    assert env.reset(idx=1)[0] == "What is 6 times 7?"
    assert asked == [{"split": "train", "revision": "v1.0"}]
    env.close()


def test_large_pushes_say_what_they_do(hub_cache, fresh_client, monkeypatch, capsys):
    monkeypatch.setattr(hub, "PROGRESS_BYTES", 1)
    hub._cache.pop(("axon-rl/NaturalQuestions", "train", None), None)
    gem.make("qa:NaturalQuestions", client=fresh_client).close()
    err = capsys.readouterr().err
    assert "loaded 'axon-rl/NaturalQuestions' split 'train'" in err and "pushing 'axon-rl/NaturalQuestions:train'" in err
    assert "pushed 'axon-rl/NaturalQuestions:train' in" in err


def test_a_dataset_not_in_the_cache_says_the_hub_is_off_and_the_offline_ways_in_python(hub_cache, client):
    started = time.monotonic()
    with pytest.raises(gem.DatasetMissingError) as err:
        gem.make("math:Math12K")
    assert time.monotonic() - started < 30
    text = str(err.value)
    assert "datasets.load_dataset('axon-rl/MATH-12k', split='train')" in text and "HF_HUB_OFFLINE" in text
    assert "gem_ts.make('math:Math12K', dataset='/path/to/data.parquet')" in text
    assert "gem_ts.register_dataset('axon-rl/MATH-12k:train'" in text
    assert "{dataset:" not in text and "registerDataset" not in text
    assert err.value.data["hub"] == "axon-rl/MATH-12k" and "hub_error" in err.value.data


@pytest.mark.parametrize("env_id", ["code:CodeContest", "math:Math12K", "qa:HotpotQA"])
def test_without_the_hub_make_fails_alike_for_every_family_and_speaks_python(client, monkeypatch, env_id):
    monkeypatch.setenv("GEM_TS_HUB_DATASETS", "0")
    with pytest.raises(gem.DatasetMissingError) as err:  # at make: code:CodeContest used to fail only at reset
        gem.make(env_id)
    text = str(err.value)
    assert f"gem_ts.make('{env_id}', dataset='/path/to/data.parquet')" in text
    assert "gem_ts.register_dataset(" in text and "datasets.load_dataset(" in text
    assert "{dataset:" not in text and "registerDataset" not in text


def test_a_missing_file_the_user_named_is_not_replaced_by_the_hub_data(hub_cache, client, tmp_path):
    with pytest.raises(gem.DatasetMissingError, match="neither a registered dataset name nor a table under a data directory this server allows"):
        gem.make("math:GSM8K", dataset=str(tmp_path / "nope.parquet"))


def test_a_table_too_big_for_one_message_says_what_to_do_before_sending_it(hub_cache, strict_server):
    with gem.Client(strict_server.endpoint) as small:
        with pytest.raises(gem.DatasetMissingError) as err:
            gem.make("math:Orz57K", client=small)
    text = str(err.value)
    assert "more than this server takes in one message" in text and "--max-message-bytes" in text
    assert "gem_ts.make('math:Orz57K', dataset='/path/to/data.parquet')" in text
