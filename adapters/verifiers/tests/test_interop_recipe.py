"""docs/interop.md's verifiers recipe, run verbatim: `vf-eval` plays 8 gem-ts episodes against a
scripted model behind a real OpenAI-compatible HTTP endpoint."""
import json
import shutil

from gem_ts_adapter_kit.interop_recipe import ROOT, run_recipe
from stub_model import StubModel
from test_rollout import bisect

RUNS = ROOT / "runs" / "vf-eval"


def test_vf_eval_recipe_plays_gem_ts_episodes_and_reports_their_returns():
    stub = StubModel(bisect)
    kept = RUNS.with_name("vf-eval.kept")
    if RUNS.exists():  # a developer's own runs: put back afterwards
        RUNS.rename(kept)
    try:
        done = run_recipe("verifiers", {"MODEL": "stub", "OPENAI_BASE_URL": stub.base_url, "OPENAI_API_KEY": "unused"})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        [traces_file] = RUNS.glob("*/traces.jsonl")
        episodes = [json.loads(line) for line in traces_file.read_text().splitlines()]
    finally:
        stub.close()
        shutil.rmtree(RUNS, ignore_errors=True)
        if kept.exists():
            kept.rename(RUNS)
    assert len(episodes) == 8 and all(e["ok"] for e in episodes)
    traces = [t for e in episodes for t in e["traces"]]
    seeds = sorted(e["task"]["data"]["info"]["seed"] for e in episodes)
    assert seeds == list(range(8))
    # Each model reply was one gem-ts step, and the reward verifiers reports is the gem-ts return.
    assert sum(t["info"]["gem_ts_steps"] for t in traces) == len(stub.requests)
    for t in traces:
        assert t["rewards"]["gem_ts_return"]["score"] == sum(t["info"]["gem_ts_rewards"])
    # Bisection finds 1..10 within 4 guesses: every episode is won.
    assert all(t["rewards"]["gem_ts_return"]["score"] == 1.0 for t in traces)
