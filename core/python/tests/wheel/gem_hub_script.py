"""A GEM user's script over GEM's hub datasets, with only ``import gem`` changed: it makes
``math:GSM8K``, ``code:CodeContest`` and ``qa:NaturalQuestions`` and answers one problem of each. It
provides no data: gem_ts loads each one with ``datasets.load_dataset`` as GEM does. The tests
(test_hub_datasets.py, test_wheel_install.py) run it with the hub switched off and the data in the
Hugging Face cache (hf_cache.py), and check the JSON line it prints."""

import json

import gem_ts as gem

ANSWERS = {
    "math:GSM8K": "so the total is \\boxed{72}",
    "code:CodeContest": "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
    "qa:NaturalQuestions": "<think>the author</think><answer>Thomas Jefferson</answer>",
}

report = {}
for env_id, answer in ANSWERS.items():
    env = gem.make(env_id)
    obs, info = env.reset(idx=0)
    _, reward, terminated, truncated, info = env.step(answer)
    report[env_id] = {"observation": obs, "reward": reward, "terminated": terminated, "dataset": type(env.dataset).__module__ + "." + type(env.dataset).__name__}
    env.close()

# A vector env over the same data reuses what the first make pushed.
envs = gem.make_vec(["math:GSM8K"] * 2)
obs, infos = envs.reset(options={"idx": 1})  # Gymnasium's form of reset(idx=1)
report["vector"] = obs
envs.close()
print(json.dumps(report))
