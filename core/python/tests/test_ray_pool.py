"""gem_ts.ray on a real local Ray cluster: three raylets (ray.cluster_utils.Cluster), each a node with
its own id, one gem-ts server actor on each. Clients on each node use their own node's server; a
sharded vector env keeps global indices; a kill -9 of a server's Node process mid-rollout reports the
envs it held as lost (never replayed) and the actor restarts it; a removed node's server leaves the
pool. One cluster for the module (starting raylets is most of the time)."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import time
from typing import Any, Dict, Iterator, List, Sequence, Tuple

import pytest
import ray
from ray.cluster_utils import Cluster
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

import gem_ts
import gem_ts.errors
import gem_ts.ray
from gem_ts.ray import EnvLostError, EnvServerPool, current_node_id
from gem_ts.ray.testing import start_local_cluster, stop_local_cluster

pytestmark = pytest.mark.timeout(400)

EASY = "game:GuessTheNumber-v0-easy"
GUESS = "\\boxed{5}"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Tuple[Cluster, List[Any]]]:
    c, workers = start_local_cluster(nodes=3, num_cpus=1)
    yield c, workers
    stop_local_cluster(c)


@pytest.fixture(scope="module")
def pool(cluster: Tuple[Cluster, List[Any]]) -> Iterator[EnvServerPool]:
    p = EnvServerPool("test", num_cpus=1, server_args=["--idle-timeout-ms", "120000"], health_interval_s=0.3)
    p.wait_ready(count=3, timeout=240)
    yield p
    p.shutdown()


@contextlib.contextmanager
def _pool_on_this_node(name: str, **kwargs: Any) -> Iterator[EnvServerPool]:
    """A one-server pool on the driver's node, with 0 CPUs (the module's "test" pool holds them)."""
    p = EnvServerPool(name, num_cpus=0, nodes=[current_node_id()], health_interval_s=0.3, **kwargs)
    try:
        yield p
    finally:
        p.shutdown()


def _wait(cond: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@ray.remote(num_cpus=0)
def _play_on_this_node(pool_name: str) -> Dict[str, Any]:
    """A rollout worker: finds the pool by name, plays through the server its node prefers."""
    client = gem_ts.ray.connect(pool_name)  # the default client from now on: plain gem_ts calls use it
    try:
        vec = gem_ts.make_vec(EASY, num_envs=2)
        obs, _ = vec.reset(seed=3)
        _, rewards, *_ = vec.step([GUESS, GUESS])
        vec.close()
        direct = EnvServerPool.get(pool_name).connect()  # the pool found by name: same server
        via_top_level = gem_ts.connect(EnvServerPool.get(pool_name))  # gem_ts.connect(pool), as documented
        same = direct.endpoint == client.endpoint == via_top_level.endpoint
        direct.close()
        via_top_level.close()
        return {"node": current_node_id(), "endpoint": client.endpoint, "boot_id": client.boot_id, "obs": obs, "same": same}
    finally:
        client.close()
        gem_ts.set_default_client(None)


def test_one_server_per_node_and_each_node_plays_through_its_own(pool: EnvServerPool) -> None:
    servers = pool.servers()
    nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    assert {s["node_id"] for s in servers} == nodes and len(servers) == 3
    assert all(s["endpoint"].startswith("tcp://") and "127.0.0.1" not in s["endpoint"] for s in servers)
    by_node = {s["node_id"]: s for s in servers}
    runs = ray.get(
        [_play_on_this_node.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False)).remote("test") for n in nodes]
    )
    assert {r["node"] for r in runs} == nodes
    for r in runs:
        assert r["endpoint"] == by_node[r["node"]]["endpoint"], "a worker used another node's server"
        assert r["boot_id"] == by_node[r["node"]]["boot_id"]
        assert len(r["obs"]) == 2 and "Guess The Number" in r["obs"][0] and r["same"]
    health = pool.health()
    assert len(health) == 3 and all(h["alive"] and h["boot_id_seen"] == h["boot_id"] for h in health)


def test_the_registry_lives_on_the_node_that_created_the_pool(pool: EnvServerPool) -> None:
    registry = ray.get_actor("gem_ts_pool:test", namespace="gem_ts")
    where = ray.get(registry.__ray_call__.remote(lambda self: current_node_id()))
    assert where == current_node_id()


def test_servers_refuse_clients_without_the_pool_token(pool: EnvServerPool) -> None:
    endpoint = pool.servers()[0]["endpoint"]
    with pytest.raises(gem_ts.UnauthorizedError):
        gem_ts.Client(endpoint, token="not-the-token", heartbeat=False).list_envs()
    with pytest.raises(ValueError):
        EnvServerPool.get("no-such-pool")


def test_sharded_vector_env_keeps_global_indices_and_seeds(pool: EnvServerPool) -> None:
    with pool.make_vec(EASY, num_envs=7) as sharded, pool.connect() as one:
        assert len({e for e in sharded.servers}) == 3  # 7 envs over 3 servers: 3 + 2 + 2
        assert [len(s.indices) for s in sharded.shards] == [3, 2, 2]
        assert sharded.shards[0].server["node_id"] == current_node_id()  # the local server first
        plain = gem_ts.make_vec(EASY, num_envs=7, client=one)
        assert sharded.reset(seed=11)[0] == plain.reset(seed=11)[0]
        guesses = [f"\\boxed{{{k}}}" for k in range(1, 8)]
        s_obs, s_rew, s_term, s_trunc, _ = sharded.step(guesses)
        p_obs, p_rew, p_term, p_trunc, _ = plain.step(guesses)
        assert s_obs == p_obs and s_rew.tolist() == p_rew.tolist() and s_term.tolist() == p_term.tolist()
        # a subset by global index, answered in the caller's order
        obs, _ = sharded.reset(seed=11, indices=[6, 0])
        assert obs == [plain.reset(seed=11, indices=[6, 0])[0][0], plain.reset(seed=11, indices=[6, 0])[0][1]]
        partial = sharded.step({6: GUESS, 0: GUESS})
        assert len(partial[0]) == 2
        with pytest.raises(ValueError):
            sharded.step([GUESS] * 3)
        with pytest.raises(IndexError):
            sharded.step({7: GUESS})
        plain.close()


def _kill_server_of(sharded: Any, shard: int) -> Tuple[str, str, float]:
    server = sharded.shards[shard].server
    os.kill(server["pid"], signal.SIGKILL)
    return server["node_id"], server["boot_id"], time.monotonic()


def test_kill9_mid_rollout_reports_lost_envs_and_the_actor_restarts_the_server(pool: EnvServerPool) -> None:
    with pool.make_vec(EASY, num_envs=6, max_turns=50) as sharded:
        sharded.reset(seed=1)
        for _ in range(2):
            sharded.step([GUESS] * 6)
        victim = sharded.shards[1]
        held = list(victim.indices)
        node, old_boot, killed_at = _kill_server_of(sharded, 1)
        with pytest.raises(EnvLostError) as lost:
            for _ in range(50):  # the step in flight when the process dies, or the next one
                sharded.step([GUESS] * 6)
        lost_after = time.monotonic() - killed_at
        assert lost.value.indices == held
        obs, _, _, truncated, infos = lost.value.result
        for g in range(6):
            assert bool(infos[g].get("env_lost")) == (g in held)
            assert truncated[g] or g not in held
            assert (obs[g] == "") == (g in held)  # lost rows carry nothing made up
        # still lost until reset: never silently resumed
        with pytest.raises(EnvLostError):
            sharded.step([GUESS] * 6)
        obs, _ = sharded.reset(seed=5, indices=held)
        new_episode_after = time.monotonic() - killed_at
        assert all("Guess The Number" in o for o in obs)
        moved_to = {(sharded.shards[1].server["endpoint"], sharded.shards[1].server["boot_id"])}
        assert (victim.server["endpoint"], old_boot) not in moved_to
        sharded.step([GUESS] * 6)  # every env plays again
        restarted = _wait(
            lambda: [s for s in pool.servers() if s["node_id"] == node and s["boot_id"] != old_boot], 90, "the actor to restart the server"
        )[0]
        assert restarted["generation"] >= 2 and restarted["restarts"]
        assert any(e["kind"] == "restarted" and e["node_id"] == node for e in pool.events())
        with pool.connect(node_id=node) as c:  # the restarted server serves
            assert c.boot_id == restarted["boot_id"]
            assert len(gem_ts.make_vec(EASY, num_envs=1, client=c).reset()[0]) == 1
        print(f"\nfailover (kill -9, raise mode): lost report {lost_after:.2f} s, new episode {new_episode_after:.2f} s")


def test_autoreset_mode_gives_new_episodes_on_live_servers_in_the_same_step(pool: EnvServerPool) -> None:
    pool.wait_ready(count=3, timeout=90)
    with pool.make_vec(EASY, num_envs=4, on_lost="autoreset", max_turns=50) as sharded:
        sharded.reset(seed=2)
        target = len(sharded.shards) - 1
        held = list(sharded.shards[target].indices)
        gone = (sharded.shards[target].server["endpoint"], sharded.shards[target].server["boot_id"])
        _, _, killed_at = _kill_server_of(sharded, target)
        for _ in range(50):
            obs, _, _, truncated, infos = sharded.step([GUESS] * 4)
            if any(i.get("env_lost") for i in infos):
                break
        after = time.monotonic() - killed_at
        assert [g for g in range(4) if infos[g].get("env_lost")] == held
        assert all(truncated[g] and "Guess The Number" in obs[g] for g in held)
        assert (sharded.shards[target].server["endpoint"], sharded.shards[target].server["boot_id"]) != gone
        print(f"\nfailover (kill -9, autoreset): lost report + new episode {after:.2f} s")
    # Right after the kill the table may still list the dead process; wait_ready returns servers that
    # answered a ping, so the killed one only as its restarted process.
    ready = pool.wait_ready(count=3, timeout=120)
    assert len(ready) == 3 and all(s["boot_id_seen"] == s["boot_id"] for s in ready)
    assert gone[1] not in {s["boot_id"] for s in ready}


def test_removed_node_leaves_the_pool_and_its_envs_are_lost(cluster: Tuple[Cluster, List[Any]], pool: EnvServerPool) -> None:
    c, workers = cluster
    live = {s["node_id"]: s["endpoint"] for s in pool.wait_ready(count=3, timeout=90)}
    # A worker node whose server holds envs, and not the node this test runs on (the pool's registry
    # lives there; with several raylets on one IP, Ray may attach the driver to any of them).
    here = current_node_id()
    with pool.make_vec(EASY, num_envs=6) as sharded:
        sharded.reset(seed=4)
        used = {sh.server["node_id"] for sh in sharded.shards}
        node = next((w for w in reversed(workers) if w.node_id in used and w.node_id != here), None)
        assert node is not None, f"no worker node holds envs: {[sh.server for sh in sharded.shards]}, {sharded.lost_log}"
        node_id = node.node_id
        held = [g for g, e in enumerate(sharded.servers) if e == live[node_id]]
        assert held, (sharded.servers, live, sharded.lost_log)
        removed_at = time.monotonic()
        c.remove_node(node)
        _wait(lambda: node_id not in {s["node_id"] for s in pool.servers()}, 60, "the pool to drop the removed node's server")
        noticed = time.monotonic() - removed_at
        assert any(e["kind"] == "lost" and e["node_id"] == node_id for e in pool.events())
        with pytest.raises(EnvLostError) as lost:
            for _ in range(20):
                sharded.step([GUESS] * 6)
        assert lost.value.indices == held
        sharded.reset(indices=held)
        assert node_id not in {sh.server["node_id"] for sh in sharded.shards}
        sharded.step([GUESS] * 6)
        print(f"\nnode removed: pool noticed in {noticed:.2f} s")


def test_a_node_that_joins_gets_a_server_but_a_pool_on_named_nodes_stays_put(cluster: Tuple[Cluster, List[Any]], pool: EnvServerPool) -> None:
    c, _ = cluster
    here = current_node_id()
    with _pool_on_this_node("fixed") as fixed:
        fixed.wait_ready(count=1, timeout=180)
        joined_at = time.monotonic()
        new = c.add_node(num_cpus=1)
        server = _wait(lambda: next((s for s in pool.servers() if s["node_id"] == new.node_id), None), 180, "a server on the new node")
        print(f"\nnode joined: its server was up in {time.monotonic() - joined_at:.2f} s")
        assert any(e["kind"] == "joined" and e["node_id"] == new.node_id for e in pool.events())
        run = ray.get(_play_on_this_node.options(scheduling_strategy=NodeAffinitySchedulingStrategy(new.node_id, soft=False)).remote("test"))
        assert run["node"] == new.node_id and run["endpoint"] == server["endpoint"]
        time.sleep(3 * gem_ts.ray.pool.NODE_SCAN_INTERVAL_S)  # past a scan of the fixed pool as well
        assert [s["node_id"] for s in fixed.servers(alive_only=False)] == [here]
        assert not [e for e in fixed.events() if e["kind"] == "joined"]
    with pytest.raises(ValueError, match="fixed size"):
        EnvServerPool("spread-follow", placement="strict_spread", follow_nodes=True)


def test_the_pool_restarted_under_its_name_serves_again(pool: EnvServerPool) -> None:
    old_boots = {s["boot_id"] for s in pool.servers()}
    pool.shutdown()
    with pytest.raises(ValueError):
        EnvServerPool.get("test")
    again = EnvServerPool("test", num_cpus=1, health_interval_s=0.3)
    nodes_now = len([n for n in ray.nodes() if n["Alive"]])
    try:
        live = again.wait_ready(count=nodes_now, timeout=120)
        assert len(live) == nodes_now and not old_boots & {s["boot_id"] for s in live}
        nodes = [s["node_id"] for s in live]
        runs = ray.get(
            [_play_on_this_node.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False)).remote("test") for n in nodes]
        )
        assert [r["node"] for r in runs] == nodes and all(r["boot_id"] not in old_boots for r in runs)
    finally:
        again.shutdown()


def _flaky_server_env(tmp_path: Any, fails: int) -> Dict[str, Any]:
    """A runtime env whose gem-ts CLI exits with code 3 on its first ``fails`` starts (counted in a
    file), then runs the real server: a Node process that does not come up, caused for real."""
    from gem_ts.local_server import find_cli

    script = tmp_path / "flaky-cli.sh"
    script.write_text(
        f'n=$(cat {tmp_path / "starts"} 2>/dev/null || echo 0); echo $((n + 1)) > {tmp_path / "starts"}\n'
        f'if [ "$n" -lt {fails} ]; then echo "injected start failure $((n + 1))" >&2; exit 3; fi\n'
        f'exec {shlex.join(find_cli())} "$@"\n'
    )
    return {"env_vars": {"GEM_TS_NODE_CLI": f"bash {script}"}}


def test_a_server_that_fails_to_start_is_placed_again_and_says_why(cluster: Tuple[Cluster, List[Any]], tmp_path: Any) -> None:
    here = current_node_id()
    with _pool_on_this_node("flaky", runtime_env=_flaky_server_env(tmp_path, fails=1)) as flaky:
        (server,) = flaky.wait_ready(count=1, timeout=120)
        assert (tmp_path / "starts").read_text().strip() == "2"
        (failed,) = [e for e in flaky.events() if e["kind"] == "start_failed"]
        assert failed["node_id"] == here
        assert "did not start (it exited with code 3)" in failed["problem"] and "injected start failure 1" in failed["problem"]
        assert "UnserializableException" not in failed["problem"]
        with gem_ts.Client(server["endpoint"], token=flaky.token, heartbeat=False) as c:  # the second start serves
            assert EASY in c.list_envs()


def test_a_server_that_never_starts_fails_wait_ready_early_with_its_reason(cluster: Tuple[Cluster, List[Any]], tmp_path: Any) -> None:
    with _pool_on_this_node("broken", runtime_env=_flaky_server_env(tmp_path, fails=99)) as broken:
        # A verdict, not the TimeoutError of waiting out the 300 s.
        with pytest.raises(gem_ts.errors.ServerUnavailableError, match="injected start failure 3") as down:
            broken.wait_ready(count=1, timeout=300)
        assert "0 of 1 servers up" in str(down.value)
        assert (tmp_path / "starts").read_text().strip() == str(gem_ts.ray.pool.MAX_START_ATTEMPTS)
        assert [e["kind"] for e in broken.events()] == ["start_failed"] * gem_ts.ray.pool.MAX_START_ATTEMPTS
        (entry,) = broken.servers(alive_only=False)
        assert entry["alive"] is False and entry["gone"] and not entry.get("starting")
        assert entry["start_attempt"] == gem_ts.ray.pool.MAX_START_ATTEMPTS


def test_a_pool_token_that_starts_with_a_dash_serves(cluster: Tuple[Cluster, List[Any]]) -> None:
    """secrets.token_urlsafe starts with "-" once in 64 pools: the server took it for a flag and every
    start exited with code 2 (the CI failure of the join test)."""
    with _pool_on_this_node("dash", token="-looks-like-a-flag") as dashed:
        (server,) = dashed.wait_ready(count=1, timeout=180)
        assert not [e for e in dashed.events() if e["kind"] == "start_failed"]
        with gem_ts.Client(server["endpoint"], token="-looks-like-a-flag", heartbeat=False) as c:
            vec = gem_ts.make_vec(EASY, num_envs=1, client=c)
            assert "Guess The Number" in vec.reset(seed=1)[0][0]
            vec.close()


def test_bad_sharding_arguments_are_refused_before_anything_is_made() -> None:
    from gem_ts.ray import ShardedVectorEnv

    with pytest.raises(ValueError, match="on_lost"):
        ShardedVectorEnv(None, EASY, 4, on_lost="replay")
    with pytest.raises(ValueError, match="num_envs"):
        ShardedVectorEnv(None, EASY, 0)


def test_strict_spread_reserves_one_bundle_per_node_or_refuses_clearly(cluster: Tuple[Cluster, List[Any]]) -> None:
    """Runs after the shared pool is gone (file order), so the nodes' CPUs are free for the group."""
    from ray.util.placement_group import placement_group_table

    alive = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    too_many = len(alive) + 1
    with pytest.raises(RuntimeError, match=f"STRICT_SPREAD group of {too_many} bundles"):
        EnvServerPool("spread-too-big", num_cpus=1, placement="strict_spread", count=too_many, placement_timeout_s=3)
    with pytest.raises(ValueError, match="placement must be"):
        EnvServerPool("spread-bad", placement="spread")

    pool = EnvServerPool("spread", num_cpus=1, placement="strict_spread", count=2, server_args=["--idle-timeout-ms", "120000"])
    try:
        live = pool.wait_ready(count=2, timeout=120)
        assert len({s["node_id"] for s in live}) == 2  # each server on its own node
        groups = [g for g in placement_group_table().values() if g["name"] == "gem_ts_pool:spread"]
        assert [g["strategy"] for g in groups] == ["STRICT_SPREAD"] and groups[0]["state"] == "CREATED"
        assert set(groups[0]["bundles_to_node_id"].values()) == {s["node_id"] for s in live}
        played = []
        for s in live:  # each server plays; the same seed and move give the same result on both
            with gem_ts.Client(s["endpoint"], token=pool.token, heartbeat=False) as c:
                env = gem_ts.make(EASY, client=c)
                first, _ = env.reset(seed=1)
                played.append((first, *env.step(GUESS)[:3]))
        assert played[0] == played[1] and "guess" in played[0][0].lower()
        with pytest.raises(ValueError, match="fixed bundles"):
            pool.add_nodes()
    finally:
        pool.shutdown()
    _wait(
        lambda: all(g["state"] == "REMOVED" for g in placement_group_table().values() if g["name"] == "gem_ts_pool:spread"),
        30,
        "the pool's placement group to be removed",
    )


def test_a_listed_server_that_cannot_be_reached_is_left_out_of_a_new_sharded_env(server: Any) -> None:
    """The table can name a server that died after it was read: make_vec splits over the others."""
    from gem_ts.ray import ShardedVectorEnv

    class TablePool:
        name, token = "table", None
        table = [{"node_id": "gone", "endpoint": "tcp://127.0.0.1:9", "alive": True},
                 {"node_id": "here", "endpoint": server.endpoint, "alive": True}]

        def servers(self) -> List[Dict[str, Any]]:
            return list(self.table)

        def pick(self, exclude: Sequence[str] = ()) -> Dict[str, Any]:
            return next(s for s in self.table if s["endpoint"] not in exclude)  # the dead one first

    with ShardedVectorEnv(TablePool(), EASY, 4, client_kwargs={"liveness_timeout": 1.0}) as sharded:
        assert [sh.server["node_id"] for sh in sharded.shards] == ["here"]
        assert [x["endpoint"] for x in sharded.lost_log] == ["tcp://127.0.0.1:9"]
        obs, _ = sharded.reset(seed=3)
        assert len(obs) == 4
