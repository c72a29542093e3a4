"""verl 0.9.1's TransferQueue trainer (`verl.trainer.main_ppo`, trainer v1) with gem-ts: verl's own
AgentLoopWorkerTQ running the per-sample gem-ts loop, and the batch hook's GemTsBatchAgentLoopWorkerTQ,
on a real TransferQueue (controller and storage as Ray actors). The batch is built the way the v1
trainer builds it: the dataloader's dict, a uid per prompt, `tu.get_tensordict`, global_steps, and the
prompts registered in the queue as pending. The trajectories are read back from the queue."""
import asyncio
import uuid

import pytest
import torch
from conftest import ENV, REPLIES
from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.sessions import close_loop_leases
from gem_ts_adapter_kit.testing import play_directly
from gem_ts_verl import AGENT_LOOP_CONFIG, write_prompt_rows
from gem_ts_verl.testing import run_worker_tq, start_transfer_queue, stop_transfer_queue, verl_config
from test_batch_hook import SlowScriptedServer

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def queue():
    yield start_transfer_queue()
    stop_transfer_queue()


def _run(queue, model_dir, tmp_path, rows, worker_class, server, n=2, prepare=None):
    train = write_prompt_rows(tmp_path / f"train-{uuid.uuid4().hex[:6]}.parquet", rows)
    cfg = verl_config(model_dir, train, AGENT_LOOP_CONFIG, overrides=[f"actor_rollout_ref.rollout.n={n}"])

    async def main():
        try:
            return await run_worker_tq(cfg, server, worker_class, prepare=prepare)
        finally:
            await close_loop_leases()

    return asyncio.run(main())


def test_the_per_sample_loop_and_the_batch_worker_put_the_same_trajectories_into_the_queue(queue, model_dir, tokenizer, tmp_path):
    from gem_ts_verl.batch_tq import GemTsBatchAgentLoopWorkerTQ

    rows = [EnvRow(ENV, s) for s in (0, 1, 7)] + [EnvRow("game:GuessTheNumber-v0-hard", 5)]
    per_sample, status_a, _ = _run(queue, model_dir, tmp_path, rows, None, SlowScriptedServer(tokenizer, REPLIES))
    batched, status_b, worker = _run(queue, model_dir, tmp_path, rows, GemTsBatchAgentLoopWorkerTQ, SlowScriptedServer(tokenizer, REPLIES))

    assert set(status_a.values()) == set(status_b.values()) == {"finished"}
    assert sorted(per_sample) == sorted(batched) == [(i, s) for i in range(len(rows)) for s in range(2)]
    for (i, s), got in batched.items():
        for name, value in got.items():
            assert torch.equal(torch.as_tensor(value), torch.as_tensor(per_sample[(i, s)][name])), (i, s, name)
        _, rewards, _ = play_directly(rows[i].env_id, rows[i].seed, REPLIES * 5)
        assert float(torch.as_tensor(got["rm_scores"]).sum()) == pytest.approx(sum(rewards))
    # Each prompt's row twice (n=2); two env configs; one step call per config per turn.
    easy_turns = max(len(play_directly(ENV, r.seed, REPLIES * 5)[1]) for r in rows[:3])
    hard_turns = len(play_directly(rows[3].env_id, rows[3].seed, REPLIES * 5)[1])
    assert worker.gem_ts_calls == {"make_vec": 2, "reset": 2, "step": easy_turns + hard_turns}


def test_per_prompt_rollout_n_sets_each_prompts_sessions_and_a_prompt_with_none_does_not_stall_the_batch(queue, model_dir, tokenizer, tmp_path):
    from gem_ts_verl.batch_tq import GemTsBatchAgentLoopWorkerTQ
    from verl.utils import tensordict_utils as tu

    rows = [EnvRow(ENV, s) for s in (0, 1, 2)]
    out, status, worker = _run(queue, model_dir, tmp_path, rows, GemTsBatchAgentLoopWorkerTQ, SlowScriptedServer(tokenizer, REPLIES),
                               prepare=lambda batch: tu.assign_non_tensor_stack(batch, "__rollout_n__", [2, 0, 3]))
    assert set(status.values()) == {"finished"}  # the n=0 prompt ends first, yet the others are not aborted
    assert sorted(out) == [(0, 0), (0, 1), (2, 0), (2, 1), (2, 2)]
    assert worker.gem_ts_calls["reset"] == 1 and worker.gem_ts_calls["make_vec"] == 1


def test_a_failing_session_fails_its_prompt_and_the_rest_do_not_hang(queue, model_dir, tokenizer, tmp_path):
    from gem_ts_verl.batch_tq import GemTsBatchAgentLoopWorkerTQ

    rows = [EnvRow(ENV, s) for s in range(3)]
    server = SlowScriptedServer(tokenizer, REPLIES, fail_on_call=8)  # a session's second turn
    out, status, worker = _run(queue, model_dir, tmp_path, rows, GemTsBatchAgentLoopWorkerTQ, server)
    assert server.calls >= 8
    assert "failure" in status.values() and set(status.values()) <= {"failure", "finished"}
    assert not worker.background_tasks  # everything settled (the wait_for above would have raised)
    assert worker.gem_ts_calls["reset"] == 1


def test_a_prompt_without_its_row_is_refused_before_anything_runs(queue, model_dir, tokenizer, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from gem_ts_verl import prompt_records
    from gem_ts_verl.batch_tq import GemTsBatchAgentLoopWorkerTQ
    from gem_ts_verl.testing import ScriptedServerManager, v1_trainer_batch

    records = prompt_records([EnvRow(ENV, 0)])
    records[0]["extra_info"] = {"index": 0}
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "bad.parquet")
    cfg = verl_config(model_dir, tmp_path / "bad.parquet", AGENT_LOOP_CONFIG)
    server = ScriptedServerManager(tokenizer, REPLIES)
    worker = GemTsBatchAgentLoopWorkerTQ(cfg, server)
    batch, _ = v1_trainer_batch(cfg, worker.tokenizer)
    with pytest.raises(ValueError, match="has no extra_info\\['gem_ts'\\]"):
        asyncio.run(worker.generate_sequences(batch))
    assert server.request_ids == [] and not worker.background_tasks
