"""OpenRLHF's agent file, loaded by path inside a Ray task pinned to the second node of a local Ray
cluster (as its vLLM engine actors load it), with GEM_TS_RAY_POOL set: its episodes are played by the
gem-ts server of that node (gem_ts.ray.EnvServerPool), and only that one."""
import asyncio

import pytest
import ray
from conftest import ENV, REPLIES
from gem_ts_adapter_kit import EnvRow
from gem_ts_adapter_kit.testing import play_directly
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

import gem_ts
from gem_ts.ray import EnvServerPool
from gem_ts.ray.testing import start_local_cluster, stop_local_cluster

pytestmark = pytest.mark.timeout(400)
POOL = "openrlhf-test"


@pytest.fixture(scope="module")
def cluster():
    c, (second,) = start_local_cluster(nodes=2, num_cpus=1)
    pool = EnvServerPool(POOL, num_cpus=1, server_args=["--idle-timeout-ms", "120000"])
    pool.wait_ready(count=2, timeout=240)
    yield pool, second.node_id
    pool.shutdown()
    stop_local_cluster(c)


@ray.remote(num_cpus=0, runtime_env={"env_vars": {"GEM_TS_RAY_POOL": POOL}})
def _rollout(labels, replies):
    """What one vLLM actor does: load the agent file by path, build AgentExecutor(), execute every sample."""
    import importlib.util

    from gem_ts_adapter_kit.testing import tiny_chat_tokenizer
    from gem_ts_openrlhf import AGENT_FUNC_PATH
    from gem_ts_openrlhf.testing import ScriptedLLMEngine, StandInSamplingParams

    spec = importlib.util.spec_from_file_location("agent_module", AGENT_FUNC_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tokenizer = tiny_chat_tokenizer()
    executor, engine = module.AgentExecutor(), ScriptedLLMEngine(tokenizer, replies)

    async def main():
        outs = await asyncio.gather(
            *(executor.execute("ignored", label, StandInSamplingParams(logprobs=1), 1024, tokenizer, engine) for label in labels)
        )
        return [float(o["reward"]) for o in outs]

    return asyncio.run(main())


def test_agent_file_on_a_second_node_plays_through_that_nodes_server(cluster):
    pool, second = cluster
    seeds = [0, 5]
    task = _rollout.options(scheduling_strategy=NodeAffinitySchedulingStrategy(second, soft=False))
    rewards = ray.get(task.remote([EnvRow(ENV, s).to_json() for s in seeds], REPLIES), timeout=300)
    assert rewards == pytest.approx([sum(play_directly(ENV, s, REPLIES)[1]) for s in seeds])
    # The actor's envs live on its node's server (its client still holds them), none on the other's.
    held = {}
    for s in pool.servers():
        with gem_ts.Client(s["endpoint"], token=pool.token, heartbeat=False) as c:
            held[s["node_id"]] = c.stats()["server"]["envs"]
    assert held[second] >= len(seeds), held
    assert all(n == 0 for node, n in held.items() if node != second), held
