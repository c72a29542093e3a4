"""EnvServerPool: one gem-ts server per Ray node, found by name from any worker.

``EnvServerPool(name)`` creates a named registry actor (namespace ``gem_ts``) that places one
``EnvServer`` actor on each chosen node by hard node affinity, with the CPUs the caller sets, and
keeps the table of servers: ``tcp://ip:port``, node id, boot id. The registry is pinned to the node of
the process that created the pool (the trainer's driver or task runner), so it lives as long as the job
does rather than with whichever node Ray found free. The table changes when a server
actor announces a restarted Node process, and when the registry's health check (every
``health_interval_s``) finds an actor gone — its node removed, or the actor killed. Data never passes
through Ray: clients talk ZeroMQ to the servers directly; Ray only places, supervises and names.

Every server requires the pool's auth token (generated per pool; the servers bind the node's IP,
which other machines reach); ``pool.token`` is what clients send.
"""

from __future__ import annotations

import itertools
import re
import secrets
import threading
import time
from collections import deque
from typing import Any, Deque, Dict, List, Optional, Sequence, Union

import ray
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy, PlacementGroupSchedulingStrategy

from ..client import Client
from ..errors import ServerUnavailableError
from .server_actor import EnvServer

NAMESPACE = "gem_ts"
DEFAULT_HEALTH_INTERVAL_S = 0.5
#: How often a following pool lists the cluster's nodes (one GCS call; joins are rare, minutes apart).
NODE_SCAN_INTERVAL_S = 2.0
#: A server whose actor failed to start on a live node (its Node process did not come up: a port, a
#: slow disk, a loaded machine) is placed again, this many times in all, after 1 s, 2 s, 4 s ...
MAX_START_ATTEMPTS = 3
START_RETRY_S = 1.0


def _registry_name(name: str) -> str:
    return f"gem_ts_pool:{name}"


def current_node_id() -> Optional[str]:
    """The Ray node this process runs on (None outside Ray)."""
    if not ray.is_initialized():
        return None
    return str(ray.get_runtime_context().get_node_id())


class _Registry:
    """The named actor behind a pool (runs threaded: announcements arrive while a health check runs)."""

    def __init__(
        self,
        name: str,
        token: str,
        nodes: List[str],
        num_cpus: float,
        resources: Dict[str, float],
        server_args: Sequence[str],
        runtime_env: Optional[Dict[str, Any]],
        health_interval_s: float,
        placement_group: Any = None,
        follow_nodes: bool = False,
    ):
        self.name = name
        # STRICT_SPREAD pools: node id -> its bundle of the group (reserved, one node each).
        self.placement_group = placement_group
        self.bundles: Dict[str, int] = _bundle_nodes(placement_group) if placement_group is not None else {}
        self.token = token
        self.num_cpus = num_cpus
        self.resources = resources
        self.server_args = list(server_args)
        self.runtime_env = runtime_env
        self.health_interval_s = health_interval_s
        self.follow_nodes = follow_nodes
        self.actors: Dict[str, Any] = {}
        self.table: Dict[str, Dict[str, Any]] = {}
        self.events: Deque[Dict[str, Any]] = deque(maxlen=10_000)  # a long job's history, bounded
        self.start_attempts: Dict[str, int] = {}  # node id -> starts since its server was last up
        self.retry_at: Dict[str, float] = {}  # node id -> when its failed start is tried again
        self.closed = False
        self._serial = itertools.count(1)
        self._lock = threading.Lock()
        self._me = ray.get_runtime_context().current_actor
        for node in nodes:
            self._place(node)
        threading.Thread(target=self._health_loop, name="gem_ts-pool-health", daemon=True).start()

    def _place(self, node_id: str) -> None:
        if self.placement_group is not None:
            strategy: Any = PlacementGroupSchedulingStrategy(self.placement_group, placement_group_bundle_index=self.bundles[node_id])
        else:
            strategy = NodeAffinitySchedulingStrategy(node_id, soft=False)
        actor_cls = ray.remote(EnvServer).options(
            num_cpus=self.num_cpus,
            resources=self.resources or None,
            scheduling_strategy=strategy,
            max_restarts=0,  # the actor restarts its Node process; a lost actor is the node's loss
            max_concurrency=4,
            runtime_env=self.runtime_env,
            # Numbered: Ray keeps the name of an actor that failed to start, and a retry needs its own.
            name=f"gem_ts_server:{self.name}:{node_id[:12]}:{next(self._serial)}",
            namespace=NAMESPACE,
        )
        actor = actor_cls.remote(self.token, self.server_args, self._me)
        with self._lock:
            self.retry_at.pop(node_id, None)
            attempt = self.start_attempts[node_id] = self.start_attempts.get(node_id, 0) + 1
            self.actors[node_id] = actor
            self.table[node_id] = {"node_id": node_id, "alive": False, "starting": True, "start_attempt": attempt}

    def _event(self, kind: str, info: Dict[str, Any]) -> None:
        event = {"t": time.time(), "kind": kind, "node_id": info.get("node_id"), "endpoint": info.get("endpoint")}
        if info.get("problem"):
            event["problem"] = info["problem"]
        self.events.append(event)

    # ── announcements and health ──────────────────────────────────────────────────────────────────

    def announce(self, info: Dict[str, Any]) -> None:
        with self._lock:
            old = self.table.get(info["node_id"], {})
            self.table[info["node_id"]] = info
            if info.get("alive"):
                self.start_attempts.pop(info["node_id"], None)
        if old.get("boot_id") and old.get("boot_id") != info.get("boot_id"):
            self._event("restarted", info)

    def _check(self, node_id: str, actor: Any) -> None:
        try:
            info = ray.get(actor.info.remote(), timeout=max(5.0, self.health_interval_s * 4))
        except ray.exceptions.GetTimeoutError:
            return  # still starting (or a slow node): no verdict yet
        except Exception as e:  # noqa: BLE001  (the actor died: its node was removed, it was killed, or it did not start)
            failed_start = isinstance(e, ray.exceptions.RayActorError) and e.actor_init_failed
            retry = failed_start and not self.closed and self.start_attempts.get(node_id, 0) < MAX_START_ATTEMPTS and node_id in _alive_nodes(0)
            with self._lock:
                if self.actors.get(node_id) is not actor:
                    return
                del self.actors[node_id]
                old = self.table.get(node_id, {"node_id": node_id})
                dead = {k: v for k, v in old.items() if k != "starting"}
                dead.update(alive=False, problem=_start_problem(e) if failed_start else f"server actor lost: {type(e).__name__}")
                if retry:
                    dead["starting"] = True  # placed again after a back-off
                    self.retry_at[node_id] = time.monotonic() + START_RETRY_S * 2 ** (self.start_attempts.get(node_id, 1) - 1)
                else:
                    dead["gone"] = True  # no actor and none to come, until add_nodes places one
                self.table[node_id] = dead
            self._event("start_failed" if failed_start else "lost", dead)
            return
        self.announce(info)

    def _retry_failed_starts(self) -> None:
        now = time.monotonic()
        with self._lock:
            due = [n for n, at in self.retry_at.items() if at <= now and n not in self.actors]
        for node_id in due:
            if not self.closed:
                self._place(node_id)

    def _join_new_nodes(self) -> None:
        """Places a server on every live node this pool has never seen (one that joined the cluster:
        autoscaled, or a replacement machine, which Ray gives a new node id). A node whose server was
        lost is not retried here: it is gone or failing, and ``add_nodes`` re-places on demand."""
        for node in self._place_missing(_alive_nodes(self.num_cpus), self.table):
            self._event("joined", {"node_id": node})

    def _place_missing(self, nodes: List[str], known: Dict[str, Any]) -> List[str]:
        """Places a server on each of ``nodes`` that is not in ``known`` (the table: ever seen; the
        actors: has a live server); returns those placed."""
        placed = []
        for node in nodes:
            with self._lock:
                missing = node not in known
            if missing:
                self._place(node)
                placed.append(node)
        return placed

    def _health_loop(self) -> None:
        every = max(1, round(NODE_SCAN_INTERVAL_S / self.health_interval_s))
        for tick in itertools.count(1):
            time.sleep(self.health_interval_s)
            try:
                with self._lock:
                    actors = list(self.actors.items())
                for node_id, actor in actors:
                    self._check(node_id, actor)
                self._retry_failed_starts()
                if self.follow_nodes and tick % every == 0:
                    self._join_new_nodes()
            except Exception as e:  # noqa: BLE001  (the GCS briefly unreachable…: the loop must outlive it)
                self._event("health_failed", {"node_id": None, "problem": repr(e)})

    # ── what pools ask ────────────────────────────────────────────────────────────────────────────

    def servers(self) -> List[Dict[str, Any]]:
        with self._lock:
            return [dict(v) for v in self.table.values()]

    def get_token(self) -> str:
        return self.token

    def get_events(self) -> List[Dict[str, Any]]:
        return list(self.events)

    def add_nodes(self, nodes: Optional[List[str]]) -> List[str]:
        """Places a server on each of ``nodes`` (None: every live node with the pool's CPUs) that has no
        live one; returns those placed."""
        if self.placement_group is not None:
            raise ValueError(
                f"gem-ts pool {self.name!r} lives in a STRICT_SPREAD placement group of fixed bundles; "
                "shut it down and start it again to change its size"
            )
        return self._place_missing(nodes if nodes is not None else _alive_nodes(self.num_cpus), self.actors)

    def actor(self, node_id: str) -> Any:
        return self.actors.get(node_id)

    def shutdown(self) -> None:
        with self._lock:
            self.closed = True
            self.retry_at.clear()
            actors = list(self.actors.values())
            self.actors.clear()
        for a in actors:
            try:
                ray.get(a.stop.remote(), timeout=5)
            except Exception:  # noqa: BLE001  (already gone)
                pass
            ray.kill(a)
        if self.placement_group is not None:
            remove_placement_group(self.placement_group)


def _bundle_nodes(group: Any) -> Dict[str, int]:
    """node id -> bundle index of a ready placement group (STRICT_SPREAD: one bundle per node)."""
    return {str(node): int(i) for i, node in placement_group_table(group)["bundles_to_node_id"].items()}


def _start_problem(e: Exception) -> str:
    """What a server actor's failed start says: the exception its ``__init__`` raised (the end of
    Ray's error text, after the traceback), not Ray's wrapper around it."""
    text = str(getattr(e, "error_msg", "") or e)
    after_traceback = max(0, text.rfind('\n  File "'))
    found = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception)\b", flags=re.M).search(text, after_traceback)
    return "server did not start: " + (text[found.start() :] if found else text[-2000:]).strip()


def _alive_nodes(num_cpus: float) -> List[str]:
    return [n["NodeID"] for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= num_cpus]


class EnvServerPool:
    """A handle on a pool of gem-ts servers (picklable: pass it to Ray tasks and actors).

    ``EnvServerPool("envs", num_cpus=1)`` starts one server on every live node with that many CPUs
    free (or on ``nodes``); ``EnvServerPool.get("envs")`` finds it from any worker of the cluster.
    ``placement="strict_spread"`` instead reserves ``count`` bundles (default: one per live node) in a
    STRICT_SPREAD placement group: all or nothing, each on its own node, freed with the pool; its size is
    fixed (``add_nodes`` refuses). A pool on every live node (no ``nodes``, node affinity) follows the
    cluster: a node that joins later (autoscaler, replacement machine) gets a server within a few seconds
    (event ``joined``); ``follow_nodes=False`` turns that off, ``True`` turns it on for a ``nodes`` pool.
    ``server_args`` are extra ``gem-ts serve`` flags (limits, idle
    timeout). ``runtime_env`` is given to the registry and the server actors: where gem-ts is not
    installed on the nodes, ship it, e.g.
    ``{"pip": ["/shared/gem_ts-0.1.0-py3-none-linux_x86_64.whl"]}``.
    """

    def __init__(
        self,
        name: str = "default",
        *,
        num_cpus: float = 1,
        resources: Optional[Dict[str, float]] = None,
        nodes: Optional[Sequence[str]] = None,
        server_args: Sequence[str] = (),
        runtime_env: Optional[Dict[str, Any]] = None,
        health_interval_s: float = DEFAULT_HEALTH_INTERVAL_S,
        token: Optional[str] = None,
        placement: str = "node_affinity",
        count: Optional[int] = None,
        placement_timeout_s: float = 60.0,
        follow_nodes: Optional[bool] = None,
        _registry: Any = None,
    ):
        self.name = name
        if _registry is not None:
            self._registry = _registry
            self._token: Optional[str] = token
            return
        if not ray.is_initialized():
            raise RuntimeError("EnvServerPool needs a Ray cluster: call ray.init() first")
        group = None
        if follow_nodes and placement == "strict_spread":
            raise ValueError("follow_nodes needs placement='node_affinity': a STRICT_SPREAD group has a fixed size")
        if placement == "strict_spread":
            if nodes is not None:
                raise ValueError("give either nodes (node affinity) or placement='strict_spread' (Ray picks the nodes), not both")
            group = _spread_group(name, count or len(_alive_nodes(num_cpus)), num_cpus, resources, placement_timeout_s)
            chosen = list(_bundle_nodes(group))
        elif placement == "node_affinity":
            if count is not None:
                raise ValueError("count is for placement='strict_spread'; with node affinity, pass nodes (default: every live node)")
            chosen = list(nodes) if nodes is not None else _alive_nodes(num_cpus)
        else:
            raise ValueError(f"placement must be 'node_affinity' or 'strict_spread', got {placement!r}")
        if not chosen:
            raise RuntimeError(f"no live Ray node has {num_cpus} CPU(s) for a gem-ts server")
        if follow_nodes is None:
            follow_nodes = placement == "node_affinity" and nodes is None
        self._token = token or secrets.token_urlsafe(24)
        here = current_node_id()
        self._registry = (
            ray.remote(_Registry)
            .options(
                name=_registry_name(name),
                namespace=NAMESPACE,
                num_cpus=0,
                max_concurrency=16,
                # Pinned, not preferred: a soft preference spills to another node when this raylet is
                # slow to start a worker, and the pool's directory would then die with that node.
                scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False) if here else None,
                runtime_env=runtime_env,  # the registry runs gem_ts code too
            )
            .remote(name, self._token, chosen, num_cpus, dict(resources or {}), list(server_args), runtime_env, health_interval_s, group, follow_nodes)
        )

    @classmethod
    def get(cls, name: str = "default") -> "EnvServerPool":
        """The pool of that name, from any process of the cluster (raises ValueError if none)."""
        return cls(name, _registry=ray.get_actor(_registry_name(name), namespace=NAMESPACE))

    def __reduce__(self) -> Any:
        return (_rebuild, (self.name, self._registry, self._token))

    # ── the table ─────────────────────────────────────────────────────────────────────────────────

    @property
    def token(self) -> str:
        if self._token is None:
            self._token = str(ray.get(self._registry.get_token.remote()))
        return self._token

    def servers(self, *, alive_only: bool = True) -> List[Dict[str, Any]]:
        """The servers (node_id, endpoint, boot_id, generation, pid, alive, restarts; while down:
        problem, starting (a start or retry under way) or gone (no actor: lost, or out of retries))."""
        table: List[Dict[str, Any]] = ray.get(self._registry.servers.remote())
        return [s for s in table if s.get("alive")] if alive_only else table

    def wait_ready(self, count: Optional[int] = None, timeout: float = 120.0) -> List[Dict[str, Any]]:
        """Blocks until ``count`` servers (default: all placed) answer a ping; returns them. Raises
        ``ServerUnavailableError`` as soon as too few are up or still starting, with their problems."""
        deadline = time.monotonic() + timeout
        while True:
            table = self.servers(alive_only=False)
            live = [s for s in table if s.get("alive")]
            want = len(table) if count is None else count
            if len(live) >= want and want > 0:
                # The table can trail a server that just died (health checks are periodic): it is
                # ready when it answers a ping.
                answered = [h for h in self.health() if h.get("alive")]
                if len(answered) >= want:
                    return answered
            gone = [s for s in table if s.get("gone")]  # (a server that restarts is not gone)
            if 0 < want <= len(table) and len(table) - len(gone) < want:  # (more than the table: nodes may join)
                down = "; ".join(f"node {s['node_id'][:12]}: {s.get('problem')}" for s in gone)
                raise ServerUnavailableError("SERVER_UNAVAILABLE", f"gem-ts pool {self.name!r}: {len(live)} of {want} servers up, and the others cannot come up: {down}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"gem-ts pool {self.name!r}: {len(live)} of {want} servers up after {timeout:.0f} s: {table}")
            time.sleep(0.2)

    def events(self) -> List[Dict[str, Any]]:
        """What the registry saw: 'restarted' (a new Node process), 'lost' (an actor gone), 'joined' (a
        server placed on a node that joined the cluster), 'start_failed' (a server actor whose start
        raised: ``problem`` says what; retried up to ``MAX_START_ATTEMPTS``), 'health_failed' (a
        health round that raised, e.g. the GCS briefly unreachable)."""
        return list(ray.get(self._registry.get_events.remote()))

    def health(self) -> List[Dict[str, Any]]:
        """A protocol-level ping of every server the table lists alive, run by its own actor; one
        that does not answer (or whose actor is gone) is reported ``alive: False`` with its problem."""
        asked = []
        for s in self.servers():
            actor = ray.get(self._registry.actor.remote(s["node_id"]))
            asked.append((s, actor.health.remote() if actor is not None else None))
        out = []
        for s, ref in asked:
            try:
                out.append(ray.get(ref, timeout=30) if ref is not None else {**s, "alive": False, "problem": "server actor lost"})
            except Exception as e:  # noqa: BLE001  (a report: the actor died or hangs since the table was read)
                out.append({**s, "alive": False, "problem": f"server actor lost: {type(e).__name__}"})
        return out

    def add_nodes(self, nodes: Optional[Sequence[str]] = None) -> List[str]:
        """Places servers on ``nodes`` (default: every live node without one, e.g. one just joined)."""
        return list(ray.get(self._registry.add_nodes.remote(list(nodes) if nodes is not None else None)))

    # ── clients ───────────────────────────────────────────────────────────────────────────────────

    def __gem_ts_connect__(self, **kwargs: Any) -> Client:
        """``gem_ts.connect(pool)``: the same as ``gem_ts.ray.connect(pool)``."""
        return connect(self, **kwargs)

    def pick(self, node_id: Optional[str] = None, exclude: Sequence[str] = ()) -> Dict[str, Any]:
        """The server on ``node_id`` (default: this process's node) if alive, else another live one."""
        live = [s for s in self.servers() if s["endpoint"] not in exclude]
        if not live:
            raise ServerUnavailableError("SERVER_UNAVAILABLE", f"gem-ts pool {self.name!r} has no live server")
        here = node_id or current_node_id()
        for s in live:
            if s["node_id"] == here:
                return s
        return live[hash(here) % len(live)]  # spread the nodes without a server over the others

    def connect(self, node_id: Optional[str] = None, **kwargs: Any) -> Client:
        """A client of the node-local server (falling back to another live one), with the pool's token."""
        s = self.pick(node_id)
        return Client(s["endpoint"], token=self.token, **kwargs)

    def make_vec(self, env_id: str, num_envs: int, **kwargs: Any) -> Any:
        """One vector env sharded over the pool's servers (see ``ShardedVectorEnv``)."""
        from .sharded import ShardedVectorEnv

        return ShardedVectorEnv(self, env_id, num_envs, **kwargs)

    def shutdown(self) -> None:
        """Stops every server and the registry (the name is free again)."""
        try:
            ray.get(self._registry.shutdown.remote(), timeout=30)
        except ray.exceptions.RayActorError:
            pass  # already shut down
        finally:
            ray.kill(self._registry)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the name is free once the registry is gone
            try:
                ray.get_actor(_registry_name(self.name), namespace=NAMESPACE)
            except ValueError:
                return
            time.sleep(0.1)


def connect(pool: Union[str, EnvServerPool] = "default", node_id: Optional[str] = None, **kwargs: Any) -> Client:
    """``gem_ts.connect`` to the node-local server of ``pool`` (a pool or its name): that client
    becomes the default one, so ``gem_ts.make``/``make_vec`` in this worker play on its node."""
    from ..client import connect as connect_default

    p = EnvServerPool.get(pool) if isinstance(pool, str) else pool
    return connect_default(p.pick(node_id)["endpoint"], token=p.token, **kwargs)


def _spread_group(name: str, count: int, num_cpus: float, resources: Optional[Dict[str, float]], timeout_s: float) -> Any:
    """A ready STRICT_SPREAD placement group of ``count`` bundles (one node each), or a clear error."""
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    bundle = {"CPU": num_cpus, **(resources or {})}
    group = placement_group([dict(bundle) for _ in range(count)], strategy="STRICT_SPREAD", name=f"gem_ts_pool:{name}")
    try:
        ray.get(group.ready(), timeout=timeout_s)
    except ray.exceptions.GetTimeoutError:
        remove_placement_group(group)
        raise RuntimeError(
            f"gem-ts pool {name!r}: a STRICT_SPREAD group of {count} bundles {bundle} (each on its own node) "
            f"was not placed within {timeout_s:.0f} s; the cluster has {len(_alive_nodes(0))} live node(s)"
        ) from None
    return group


def _rebuild(name: str, registry: Any, token: Optional[str]) -> EnvServerPool:
    return EnvServerPool(name, _registry=registry, token=token)
