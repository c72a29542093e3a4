"""docs/interop.md's NeMo Gym recipe, run verbatim from the repository root, and the rows it writes
played by nemo-gym's own simple agent against the gem_ts resources server."""
import json

from gem_ts_adapter_kit.interop_recipe import ROOT, run_recipe
from test_rollouts import GAME, bisect, run_rows, stack  # noqa: F401  (stack: the fixture)

ROWS = ROOT / "guess.jsonl"


def test_recipe_writes_rows_that_the_simple_agent_plays(stack):  # noqa: F811
    kept = ROWS.read_bytes() if ROWS.exists() else None  # a developer's own file: put back afterwards
    try:
        done = run_recipe("NeMo Gym")
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        rows = [json.loads(line) for line in ROWS.read_text().splitlines()]
    finally:
        if kept is None:
            ROWS.unlink(missing_ok=True)
        else:
            ROWS.write_bytes(kept)
    assert [r["seed"] for r in rows] == list(range(64)) and {r["env_id"] for r in rows} == {GAME}
    model, servers, cfg = stack(bisect)
    results = run_rows(cfg, rows[:4])
    assert [status for status, _ in results] == [200] * 4, servers.read_logs()
    assert [res["seed"] for _, res in results] == [0, 1, 2, 3]
    assert all(res["terminated"] and res["reward"] == 1.0 for _, res in results)  # bisection wins in 4 guesses
    steps = sum(res["steps"] for _, res in results)
    assert len(model.requests) == steps + 4  # one model call per step, and each episode's closing message
