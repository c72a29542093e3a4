"""One vector env over several gem-ts servers of a pool, with GEM's VectorEnv API and global indices.

``num_envs`` is split into one shard per server (the caller's node first); env ``i`` stays env ``i``
whichever server holds it, and a seed ``s`` gives env ``i`` the seed ``s + i`` as on one server. The
shards step at once (one thread each; the sockets release the GIL), so servers work in parallel.

When a server dies, the envs it held are *lost*: their episode cannot continue anywhere (replaying it
on another server would hand the trainer made-up turns). A step reports them:
- ``on_lost="raise"`` (default): ``EnvLostError`` with ``.indices`` (global) and ``.result``, the step's
  rows for every env (lost rows: truncated, ``info["env_lost"] = True``); the other servers' steps
  did happen. ``reset(indices=...)`` (or a plain ``reset()``) starts the lost envs again on live servers.
- ``on_lost="autoreset"``: the lost envs are remade on a live server at once and their rows carry the
  new episode's first observation, truncated, with ``info["env_lost"] = True`` (GEM's same-step
  autoreset shape), so a rollout loop goes on.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..calls import StepReturn
from ..client import Client
from ..errors import RequestTimeoutError, ResetNeededError, ServerUnavailableError, UnknownHandleError
from ..registration import make_vec
from ..vector import VectorEnv

#: What a step or reset raises when its server is gone (killed, restarted, unreachable).
LOST_ERRORS = (ServerUnavailableError, UnknownHandleError, ResetNeededError, RequestTimeoutError)


class EnvLostError(ServerUnavailableError):
    """Envs of a sharded vector env were lost with their server; ``indices`` are global."""

    def __init__(self, indices: Sequence[int], endpoints: Sequence[str], result: Optional[StepReturn] = None, why: str = ""):
        super().__init__(
            "SERVER_UNAVAILABLE",
            f"envs {list(indices)} were lost with their server(s) {sorted(set(endpoints))}: {why}; "
            "reset them to start new episodes on live servers",
            {"indices": list(indices), "endpoints": sorted(set(endpoints))},
        )
        self.indices = list(indices)
        self.result = result


class _Shard:
    def __init__(self, server: Dict[str, Any], client: Client, vec: VectorEnv, indices: List[int]):
        self.server = server
        self.client = client
        self.vec = vec
        self.indices = indices  # global env indices, in the shard's local order
        self.lost: Optional[str] = None  # why, once its server is gone


def _split(n: int, parts: int) -> List[int]:
    base, extra = divmod(n, parts)
    return [base + (1 if k < extra else 0) for k in range(parts)]


class ShardedVectorEnv:
    def __init__(
        self,
        pool: Any,
        env_id: str,
        num_envs: int,
        *,
        shards: Optional[int] = None,
        on_lost: str = "raise",
        autoreset_mode: Optional[str] = None,
        client_kwargs: Optional[Dict[str, Any]] = None,
        **env_kwargs: Any,
    ):
        if on_lost not in ("raise", "autoreset"):
            raise ValueError(f"on_lost must be 'raise' or 'autoreset', not {on_lost!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.pool = pool
        self.env_id = env_id
        self.num_envs = num_envs
        self.on_lost = on_lost
        self.autoreset_mode = autoreset_mode
        self.env_kwargs = env_kwargs
        self.client_kwargs = dict(client_kwargs or {})
        self._clients: Dict[Tuple[str, str], Client] = {}
        self.lost_log: List[Dict[str, Any]] = []  # (time, indices, endpoint, why): failover accounting
        self.shards: List[_Shard] = []
        servers = self._ordered_servers()
        while not self.shards:
            count = min(shards or len(servers), len(servers), num_envs)
            start = 0
            for server, size in zip(servers[:count], _split(num_envs, count)):
                try:
                    self.shards.append(self._open(server, list(range(start, start + size))))
                except ServerUnavailableError as err:
                    # Listed alive but unreachable (it died after the table was read): split again
                    # over the others rather than fail the whole vector env.
                    self.lost_log.append({"t": time.time(), "indices": [], "endpoint": server["endpoint"], "why": str(err)})
                    for shard in self.shards:
                        shard.vec.close()
                    self.shards = []
                    servers = [x for x in servers if x["endpoint"] != server["endpoint"]]
                    if not servers:
                        raise
                    break
                start += size
        self._where: List[Tuple[int, int]] = []  # global index → (shard, local index)
        self._reindex()
        self._threads = ThreadPoolExecutor(max_workers=max(1, len(self.shards)), thread_name_prefix="gem_ts-shard")

    # ── placement ─────────────────────────────────────────────────────────────────────────────────

    def _ordered_servers(self, exclude: Sequence[str] = ()) -> List[Dict[str, Any]]:
        live = [s for s in self.pool.servers() if s["endpoint"] not in exclude]
        if not live:
            raise ServerUnavailableError("SERVER_UNAVAILABLE", f"gem-ts pool {self.pool.name!r} has no live server")
        first = self.pool.pick(exclude=exclude)
        return [first, *[s for s in live if s["endpoint"] != first["endpoint"]]]

    def _client(self, server: Dict[str, Any]) -> Client:
        key = (server["endpoint"], server.get("boot_id", ""))
        c = self._clients.get(key)
        if c is None or c.closed:
            c = self._clients[key] = Client(server["endpoint"], token=self.pool.token, **self.client_kwargs)
        return c

    def _open(self, server: Dict[str, Any], indices: List[int]) -> _Shard:
        client = self._client(server)
        vec = make_vec(self.env_id, num_envs=len(indices), autoreset_mode=self.autoreset_mode, client=client, **self.env_kwargs)
        return _Shard(server, client, vec, indices)

    def _reindex(self) -> None:
        where: List[Tuple[int, int]] = [(-1, -1)] * self.num_envs
        for s, shard in enumerate(self.shards):
            for j, g in enumerate(shard.indices):
                where[g] = (s, j)
        self._where = where

    def _rehome(self, s: int) -> _Shard:
        """Remakes lost shard ``s`` on a live server: never the dead process (its endpoint under the
        same boot id), but the same endpoint restarted, or another node; the least loaded one."""
        dead = self.shards[s]
        gone = (dead.server["endpoint"], dead.server.get("boot_id"))
        candidates = [x for x in self._ordered_servers() if (x["endpoint"], x.get("boot_id")) != gone]
        if not candidates:
            raise ServerUnavailableError("SERVER_UNAVAILABLE", f"gem-ts pool {self.pool.name!r}: no live server to take envs {dead.indices}")
        load: Dict[str, int] = {}
        for sh in self.shards:
            if sh.lost is None:
                load[sh.server["endpoint"]] = load.get(sh.server["endpoint"], 0) + len(sh.indices)
        target = min(candidates, key=lambda x: load.get(x["endpoint"], 0))  # stable: the local one wins ties
        shard = self._open(target, dead.indices)
        self.shards[s] = shard
        old = self._clients.pop((dead.server["endpoint"], dead.server.get("boot_id", "")), None)
        if old is not None and all(sh.client is not old for sh in self.shards):
            threading.Thread(target=old.close, daemon=True).start()  # its goodbye may wait on a dead peer
        return shard

    def _each(self, fn: Any, shards: List[int]) -> List[Any]:
        """``fn`` on each shard at once: all but the last on the pool's threads, the last right here
        (a single shard costs no thread hop)."""
        futures = [self._threads.submit(fn, s) for s in shards[:-1]]
        last = fn(shards[-1]) if shards else None
        return [f.result() for f in futures] + ([last] if shards else [])

    # ── the VectorEnv API ─────────────────────────────────────────────────────────────────────────

    @property
    def servers(self) -> List[str]:
        """Each env's server endpoint, by global index."""
        return [self.shards[s].server["endpoint"] for s, _ in self._where]

    def _by_shard(self, indices: Sequence[int]) -> Dict[int, List[Tuple[int, int]]]:
        out: Dict[int, List[Tuple[int, int]]] = {}
        for g in indices:
            if not 0 <= int(g) < self.num_envs:
                raise IndexError(f"env index {g} is out of range for {self.num_envs} envs")
            s, j = self._where[int(g)]
            out.setdefault(s, []).append((int(g), j))
        return out

    def reset(self, seed: Optional[int] = None, indices: Optional[Sequence[int]] = None) -> Tuple[List[str], List[Dict[str, Any]]]:
        """GEM's reset (env i gets seed + i); lost envs in ``indices`` start on live servers."""
        order = list(range(self.num_envs)) if indices is None else [int(i) for i in indices]
        groups = self._by_shard(order)
        for s in groups:
            if self.shards[s].lost is not None:
                self._rehome(s)

        def run(s: int) -> Dict[int, Tuple[str, Dict[str, Any]]]:
            shard = self.shards[s]
            local = [j for _, j in groups[s]]
            seeds = None if seed is None else [seed + g for g, _ in groups[s]]
            obs, infos = shard.vec.reset(seed=seeds, indices=local)
            return {g: (o, i) for (g, _), o, i in zip(groups[s], obs, infos)}

        rows: Dict[int, Tuple[str, Dict[str, Any]]] = {}
        for part in self._each(run, list(groups)):
            rows.update(part)
        return [rows[g][0] for g in order], [rows[g][1] for g in order]

    def step(self, actions: Any) -> StepReturn:
        if isinstance(actions, Mapping):
            plan = {int(g): a for g, a in actions.items()}
        else:
            acts = list(actions)
            if len(acts) != self.num_envs:
                raise ValueError(f"step: got {len(acts)} actions for {self.num_envs} envs; pass a dict to step a subset")
            plan = dict(enumerate(acts))
        order = list(plan)
        groups = self._by_shard(order)

        def run(s: int) -> Any:
            shard = self.shards[s]
            if shard.lost is not None:
                return ResetNeededError("RESET_NEEDED", f"envs {shard.indices} were lost with {shard.server['endpoint']}; reset them")
            try:
                return shard.vec.step({j: plan[g] for g, j in groups[s]})
            except LOST_ERRORS as e:
                return e

        results = self._each(run, list(groups))
        rows: Dict[int, Tuple[str, float, bool, bool, Dict[str, Any]]] = {}
        lost: List[int] = []
        lost_at: List[str] = []
        why = ""
        for s, res in zip(list(groups), results):
            if isinstance(res, BaseException):
                shard = self.shards[s]
                if shard.lost is None:
                    shard.lost = str(res)
                    self.lost_log.append({"t": time.monotonic(), "indices": list(shard.indices), "endpoint": shard.server["endpoint"], "why": str(res)})
                why = why or str(res)
                lost += [g for g, _ in groups[s]]
                lost_at.append(shard.server["endpoint"])
                for g, _ in groups[s]:
                    rows[g] = ("", 0.0, False, True, {"env_lost": True, "lost_reason": shard.lost, "server": shard.server["endpoint"]})
                continue
            obs, rew, term, trunc, infos = res
            for k, (g, _) in enumerate(groups[s]):
                rows[g] = (obs[k], float(rew[k]), bool(term[k]), bool(trunc[k]), infos[k])
        if lost and self.on_lost == "autoreset":
            new_obs, new_infos = self.reset(indices=lost)
            for g, o, i in zip(lost, new_obs, new_infos):
                rows[g] = (o, 0.0, False, True, {**i, "env_lost": True, "lost_reason": rows[g][4]["lost_reason"], "server": self.servers[g]})
        out: StepReturn = (
            [rows[g][0] for g in order],
            np.array([rows[g][1] for g in order], dtype=np.float64),
            np.array([rows[g][2] for g in order], dtype=bool),
            np.array([rows[g][3] for g in order], dtype=bool),
            [rows[g][4] for g in order],
        )
        if lost and self.on_lost == "raise":
            raise EnvLostError(lost, lost_at, out, why)
        return out

    def sample_random_actions(self) -> List[str]:
        out: List[str] = [""] * self.num_envs
        for shard in self.shards:
            for g, a in zip(shard.indices, shard.vec.sample_random_actions()):
                out[g] = a
        return out

    def close(self) -> None:
        self._threads.shutdown(wait=False)
        for shard in self.shards:
            try:
                shard.vec.close()
            except Exception:  # noqa: BLE001  (its server may be gone)
                pass
        for c in self._clients.values():
            c.close()
        self._clients.clear()

    def __len__(self) -> int:
        return self.num_envs

    def __enter__(self) -> "ShardedVectorEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
