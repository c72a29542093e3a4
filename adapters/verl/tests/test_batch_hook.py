"""The batch-level hook (`agent_loop_manager_class=gem_ts_verl.batch.GemTsAgentLoopManager`) in
verl 0.9.1's real classes: its worker is verl's AgentLoopWorker plus a lockstep batch, so the output
must be the per-sample worker's, token for token, with one env call per config per turn."""
import asyncio
import random

import pytest
import torch
from conftest import ENV, REPLIES
from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.testing import play_directly
from gem_ts_verl.batch import GemTsBatchAgentLoopWorker
from gem_ts_verl.testing import ScriptedServerManager


class SlowScriptedServer(ScriptedServerManager):
    """Scripted replies that take a different time each, so samples reach the env out of step."""

    def __init__(self, tokenizer, replies, fail_on_call=None):
        super().__init__(tokenizer, replies)
        self.rng = random.Random(3)
        self.calls = 0
        self.fail_on_call = fail_on_call

    async def generate(self, request_id, **kwargs):
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise RuntimeError("the rollout engine went away")
        await asyncio.sleep(self.rng.random() * 0.03)
        return await super().generate(request_id, **kwargs)


def test_the_batch_worker_matches_the_per_sample_worker_with_one_step_call_per_turn(run, tokenizer):
    rows = [EnvRow(ENV, s) for s in (0, 1, 2, 7)] + [EnvRow("game:GuessTheNumber-v0-hard", 5)]
    per_sample, _ = run(rows, server=SlowScriptedServer(tokenizer, REPLIES))
    batched, _ = run(rows, worker_class=GemTsBatchAgentLoopWorker, server=SlowScriptedServer(tokenizer, REPLIES))

    for key in ("prompts", "responses", "response_mask", "attention_mask", "rm_scores", "rollout_log_probs"):
        assert torch.equal(per_sample.batch[key], batched.batch[key]), key
    turns = []
    for k, row in enumerate(rows):
        _, rewards, _ = play_directly(row.env_id, row.seed, REPLIES * 5)  # replies cycle
        assert list(batched.non_tensor_batch["turn_scores"][k]) == pytest.approx(rewards)
        turns.append(len(rewards))
    # Two env configs (easy, hard): each made and reset once; each stepped once per turn it has.
    assert batched.meta_info["gem_ts_calls"] == {"make_vec": 2, "reset": 2, "step": max(turns[:4]) + turns[4]}
    assert "gem_ts_calls" not in per_sample.meta_info


def test_a_failing_sample_fails_the_batch_instead_of_hanging_it(run, tokenizer):
    rows = [EnvRow(ENV, s) for s in range(4)]
    server = SlowScriptedServer(tokenizer, REPLIES, fail_on_call=6)  # a sample's second turn
    with pytest.raises(Exception, match="the rollout engine went away|another episode of this batch failed"):
        run(rows, worker_class=GemTsBatchAgentLoopWorker, server=server)
    assert server.calls >= 6


def test_rows_without_an_episode_are_refused_before_anything_runs(model_dir, tokenizer, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from gem_ts_verl import AGENT_LOOP_CONFIG, prompt_records
    from gem_ts_verl.testing import run_worker, verl_config

    records = prompt_records([EnvRow(ENV, 0)])
    records[0]["extra_info"] = {"index": 0}
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "bad.parquet")
    cfg = verl_config(model_dir, tmp_path / "bad.parquet", AGENT_LOOP_CONFIG)
    server = ScriptedServerManager(tokenizer, REPLIES)
    with pytest.raises(ValueError, match="has no extra_info\\['gem_ts'\\]"):
        asyncio.run(run_worker(cfg, server, GemTsBatchAgentLoopWorker))
    assert server.request_ids == []



def test_samples_of_another_agent_run_beside_the_lockstep_batch(model_dir, tokenizer, tmp_path):
    """A batch that mixes verl's own single_turn_agent with gem-ts samples: the other agent's sample
    is not counted in the barrier (else the batch would wait for it forever) and runs as verl runs it."""
    import verl.experimental.agent_loop.single_turn_agent_loop  # noqa: F401  (registers single_turn_agent)
    from gem_ts_adapter_kit.sessions import close_loop_leases
    from gem_ts_verl import AGENT_LOOP_CONFIG, write_prompt_rows
    from gem_ts_verl.testing import verl_config
    from verl.protocol import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    seeds = [0, 1, 2]
    train = write_prompt_rows(tmp_path / "train.parquet", [EnvRow(ENV, s) for s in seeds])
    cfg = verl_config(model_dir, train, AGENT_LOOP_CONFIG)
    server = ScriptedServerManager(tokenizer, REPLIES)
    worker = GemTsBatchAgentLoopWorker(cfg, server)
    dataset = RLHFDataset(cfg.data.train_files, worker.tokenizer, cfg.data)
    batch = DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))
    batch.non_tensor_batch["agent_name"][1] = "single_turn_agent"

    async def main():
        try:
            return await asyncio.wait_for(worker.generate_sequences(batch), 120)
        finally:
            await close_loop_leases()

    out = asyncio.run(main())
    turns = [len(t) if t is not None else 0 for t in out.non_tensor_batch["turn_scores"]]
    assert turns[1] == 0 and out.non_tensor_batch["__num_turns__"][1] == 2  # one prompt, one reply
    for k in (0, 2):
        _, rewards, _ = play_directly(ENV, seeds[k], REPLIES)
        assert list(out.non_tensor_batch["turn_scores"][k]) == pytest.approx(rewards)
    assert out.meta_info["gem_ts_calls"]["make_vec"] == 1 and out.meta_info["gem_ts_calls"]["reset"] == 1
