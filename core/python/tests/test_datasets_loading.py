"""The real dataset loading path: data loaded with Hugging Face ``datasets`` on the trainer's side
(here built locally, as the hub is out of reach) reaches the server as a file it reads (Parquet,
JSON Lines, a ``save_to_disk`` folder) or as a table pushed with ``gem_ts.register_dataset``.
"""
from __future__ import annotations

import pytest

import gem_ts as gem

datasets = pytest.importorskip("datasets", reason="datasets comes with scripts/requirements/tasks.txt")

PROBLEMS = [
    {"problem": "What is 6 times 7?", "answer": "42"},
    {"problem": "Simplify 10/4.", "answer": "\\frac{5}{2}"},
    {"problem": "What is the square root of 12, simplified?", "answer": "2\\sqrt{3}"},
]


@pytest.fixture(scope="module")
def math_ds():
    return datasets.Dataset.from_list(PROBLEMS)


def answer_all(env, answers):
    rewards = []
    for i, a in enumerate(answers):
        obs, info = env.reset(idx=i)
        assert obs == PROBLEMS[i]["problem"]
        rewards.append(env.step(f"so the answer is \\boxed{{{a}}}")[1])
    return rewards


@pytest.mark.parametrize("kind", ["parquet", "jsonl", "save_to_disk"])
def test_make_reads_a_file_written_by_datasets(client, math_ds, tmp_path, kind):
    if kind == "parquet":
        path = tmp_path / "train.parquet"
        math_ds.to_parquet(str(path))
    elif kind == "jsonl":
        path = tmp_path / "train.jsonl"
        math_ds.to_json(str(path))
    else:
        path = tmp_path / "saved"
        math_ds.save_to_disk(str(path))
    env = gem.make("math:Math12K", dataset=str(path))
    assert answer_all(env, ["42", "2.5", "\\sqrt{12}"]) == [1.0, 1.0, 1.0]
    env.reset(idx=0)
    assert env.step("\\boxed{41}")[1] == 0.0
    env.close()


def test_make_picks_a_split_of_a_saved_dataset_dict(client, math_ds, tmp_path):
    dd = datasets.DatasetDict({"train": math_ds, "test": math_ds.select([2])})
    dd.save_to_disk(str(tmp_path / "dict"))
    env = gem.make("eval:MATH500", dataset=str(tmp_path / "dict"), split="test", prompt_template="none")
    obs, _ = env.reset()
    assert obs == PROBLEMS[2]["problem"]
    env.close()


def test_make_takes_a_loaded_dataset_object_as_gem_does(client, math_ds):
    # GEM's make(id, dataset=<datasets.Dataset>): the table is pushed once and the env reads it.
    env = gem.make("math:Math12K", dataset=math_ds)
    assert answer_all(env, ["42", "2.5", "\\sqrt{12}"]) == [1.0, 1.0, 1.0]
    env.close()
    vec = gem.make_vec(["math:Math12K"] * 2, dataset=math_ds.to_pandas())
    obs, _ = vec.reset()
    assert all(o in [p["problem"] for p in PROBLEMS] for o in obs)
    vec.close()


def test_register_dataset_stands_in_for_the_hub(client, math_ds):
    reply = gem.register_dataset("axon-rl/math-eval:amc", math_ds)
    assert reply == {"name": "axon-rl/math-eval:amc", "rows": 3, "columns": ["problem", "answer"]}
    env = gem.make("eval:AMC", prompt_template="none")
    assert answer_all(env, ["6 \\cdot 7", "5/2", "2\\sqrt3"]) == [1.0, 1.0, 1.0]
    env.close()


def test_register_dataset_takes_a_shuffled_view_and_list_answers(client, math_ds):
    qa = datasets.Dataset.from_list(
        [{"question": "Largest planet?", "answer": ["Jupiter"]}, {"question": "Red planet?", "answer": ["Mars", "the planet Mars"]}]
    ).shuffle(seed=0)
    gem.register_dataset("axon-rl/search-eval:bamboogle", qa)
    env = gem.make("eval:Bamboogle")
    rewards = []
    for row in qa:
        obs, _ = env.reset()
        assert obs.endswith(f"Question: {row['question']}")
        rewards.append(env.step(f"<answer>{row['answer'][-1]}</answer>")[1])
    assert rewards == [1.0, 1.0]
    env.close()


def test_missing_data_says_how_to_provide_it(client):
    with pytest.raises(ValueError) as err:
        gem.make("math:GSM8K")
    assert err.value.code == "DATASET_MISSING"
    assert "gem_ts.register_dataset('axon-rl/GSM-8k:train'" in str(err.value)
    assert "load_dataset('axon-rl/GSM-8k', split='train')" in str(err.value)
