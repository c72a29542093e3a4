"""verl's real AgentLoopWorker as a Ray actor on the second node of a local Ray cluster
(ray.cluster_utils.Cluster, two raylets), with `ray_pool:` in agent_loops.yaml: its episodes are
played by the gem-ts server of its own node (gem_ts.ray.EnvServerPool), and only that one."""
import pytest
import ray
from conftest import ENV, REPLIES
from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.testing import play_directly
from gem_ts_verl import pool_agent_loop_config, write_prompt_rows
from gem_ts_verl.testing import ScriptedServerManager, verl_config
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

import gem_ts
from gem_ts.ray import EnvServerPool
from gem_ts.ray.testing import start_local_cluster, stop_local_cluster

pytestmark = pytest.mark.timeout(400)


@pytest.fixture(scope="module")
def cluster():
    c, (second,) = start_local_cluster(nodes=2, num_cpus=2)  # one CPU for the server, one for a worker
    pool = EnvServerPool("verl-test", num_cpus=1, server_args=["--idle-timeout-ms", "120000"])
    pool.wait_ready(count=2, timeout=240)
    yield pool, second.node_id
    pool.shutdown()
    stop_local_cluster(c)


def test_agent_loop_worker_on_a_second_node_plays_through_that_nodes_server(cluster, model_dir, tokenizer, tmp_path):
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from verl.protocol import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    pool, second = cluster
    yaml = pool_agent_loop_config(tmp_path / "loops.yaml", "verl-test")
    seeds = [0, 5]
    train = write_prompt_rows(tmp_path / "train.parquet", [EnvRow(ENV, s) for s in seeds])
    cfg = verl_config(model_dir, train, yaml)
    server = ScriptedServerManager(tokenizer, REPLIES)
    dataset = RLHFDataset(cfg.data.train_files, tokenizer, cfg.data)
    batch = DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))

    worker = (
        ray.remote(AgentLoopWorker)
        .options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(second, soft=False))
        .remote(cfg, server)
    )
    out = ray.get(worker.generate_sequences.remote(batch), timeout=300)
    for k, seed in enumerate(seeds):
        _, rewards, _ = play_directly(ENV, seed, REPLIES)
        assert list(out.non_tensor_batch["turn_scores"][k]) == pytest.approx(rewards)

    # The worker's envs live on its node's server (it still holds them), none on the other node's.
    held = {}
    for s in pool.servers():
        with gem_ts.Client(s["endpoint"], token=pool.token, heartbeat=False) as c:
            held[s["node_id"]] = c.stats()["server"]["envs"]
    assert held[second] >= len(seeds)
    assert all(n == 0 for node, n in held.items() if node != second)
    ray.kill(worker)


def test_endpoint_and_ray_pool_together_are_refused(run, tmp_path):
    yaml = pool_agent_loop_config(tmp_path / "loops.yaml", "verl-test", endpoint="tcp://127.0.0.1:1")
    with pytest.raises(Exception, match="either endpoint"):
        run([EnvRow(ENV, 0)], agent_loop_config=yaml)


def test_the_batch_hook_manager_runs_one_worker_per_node_each_on_its_nodes_server(cluster, model_dir, tokenizer, tmp_path):
    """verl's own AgentLoopManager.create / generate_sequences, with our manager class: its two
    workers land on the two nodes (verl's round-robin) and each steps its half of the batch in lockstep
    on its own node's server."""
    from gem_ts_verl.batch import GemTsAgentLoopManager
    from verl.protocol import DataProto
    from verl.utils.dataset.rl_dataset import RLHFDataset, collate_fn

    pool, _ = cluster
    yaml = pool_agent_loop_config(tmp_path / "loops.yaml", "verl-test")
    seeds = [0, 1, 2, 7]
    train = write_prompt_rows(tmp_path / "train.parquet", [EnvRow(ENV, s) for s in seeds])
    cfg = verl_config(model_dir, train, yaml, overrides=["actor_rollout_ref.rollout.agent.num_workers=2"])
    dataset = RLHFDataset(cfg.data.train_files, tokenizer, cfg.data)
    batch = DataProto.from_single_dict(collate_fn([dataset[i] for i in range(len(dataset))]))

    def requests():
        counts = {}
        for s in pool.servers():
            with gem_ts.Client(s["endpoint"], token=pool.token, heartbeat=False) as c:
                counts[s["node_id"]] = c.stats()["server"]["requests"]
        return counts

    before = requests()
    manager = GemTsAgentLoopManager.create(config=cfg, llm_client=ScriptedServerManager(tokenizer, REPLIES))
    try:
        out = manager.generate_sequences(batch)
        for k, seed in enumerate(seeds):
            _, rewards, _ = play_directly(ENV, seed, REPLIES)
            assert list(out.non_tensor_batch["turn_scores"][k]) == pytest.approx(rewards)
        # The first worker's half of the batch: made, reset and stepped in lockstep on one handle.
        first_half = [len(play_directly(ENV, s, REPLIES)[1]) for s in seeds[:2]]
        assert out.meta_info["gem_ts_calls"] == {"make_vec": 1, "reset": 1, "step": max(first_half)}
        # Each node's server served a worker: at least hello + make + reset + one step + close each.
        after = requests()
        assert all(after[node] - before[node] >= 5 for node in before), (before, after)
    finally:
        for worker in manager.agent_loop_workers:
            ray.kill(worker)
