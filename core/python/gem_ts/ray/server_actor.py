"""One gem-ts server on one Ray node: the actor that starts the Node process and keeps it running.

The actor holds the server as a child process (``LocalServer``: stdin pipe + ``--exit-with-stdin``,
so the server goes with the actor, even on SIGKILL or a removed node). A supervisor thread watches
the process; when it dies the actor starts a new one — on the same port when it is free, so clients
reconnect to the same endpoint, and under a new ``boot_id``, so handles of the dead one fail as
``UnknownHandleError`` instead of reaching a stranger's env — and announces it to the pool's registry.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Dict, List, Optional, Sequence

import ray

from ..client import Client
from ..errors import ServerUnavailableError
from ..local_server import LocalServer

#: How often the supervisor looks at the Node process (a kill -9 is seen within this).
POLL_S = 0.05


def _port(endpoint: str) -> int:
    return int(endpoint.rsplit(":", 1)[1])


class EnvServer:
    """Ray actor body (wrapped with ``ray.remote`` by the pool, which sets its resources and node)."""

    def __init__(self, token: str, server_args: Sequence[str], registry: Any, host: Optional[str] = None):
        self.token = token
        self.server_args = list(server_args)
        self.registry = registry
        self.node_id = ray.get_runtime_context().get_node_id()
        self.host = host or ray.util.get_node_ip_address()
        self.generation = 0
        self.restarts: List[Dict[str, float]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.server: LocalServer
        self.boot_id = ""
        self._start(0)
        threading.Thread(target=self._supervise, name="gem_ts-ray-supervisor", daemon=True).start()

    # ── the Node process ──────────────────────────────────────────────────────────────────────────

    def _start(self, port: int) -> None:
        try:
            srv = self._launch(port)
        except ServerUnavailableError:
            if port == 0:
                raise
            srv = self._launch(0)  # the old port is taken: a new one
        probe = Client(srv.endpoint, token=self.token, heartbeat=False)
        try:
            boot_id = probe.boot_id
        finally:
            probe.close()
        with self._lock:
            self.server, self.boot_id = srv, boot_id
            self.generation += 1

    def _launch(self, port: int) -> LocalServer:
        """The Node server on ``port``; the token travels by pipe (``ps`` shows argv to every user)."""
        return LocalServer(self.server_args, endpoint=f"tcp://{self.host}:{port}", auth_token=self.token)

    def _supervise(self) -> None:
        while not self._stop.wait(POLL_S):
            srv = self.server
            if srv.alive():
                continue
            died_at = time.time()
            code = srv.proc.returncode
            srv.stop()
            try:
                self._start(_port(srv.endpoint))
            except Exception as e:  # noqa: BLE001  (reported to the registry, retried next poll)
                self.registry.announce.remote({**self.info(), "alive": False, "problem": f"restart failed: {e}"})
                time.sleep(1.0)
                continue
            self.restarts.append({"died_at": died_at, "up_at": time.time(), "exit_code": float(code or 0)})
            self.registry.announce.remote(self.info())

    # ── what the pool asks ────────────────────────────────────────────────────────────────────────

    def info(self) -> Dict[str, Any]:
        with self._lock:
            srv = self.server
            return {
                "node_id": self.node_id,
                "endpoint": srv.endpoint,
                "boot_id": self.boot_id,
                "generation": self.generation,
                "pid": srv.proc.pid,
                "actor_pid": os.getpid(),
                "alive": srv.alive(),
                "restarts": list(self.restarts),
                # Which install runs here: the wheel shipped by a runtime env, a site install, a checkout.
                "package": os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                "server_command": [str(a) for a in srv.proc.args] if isinstance(srv.proc.args, (list, tuple)) else [str(srv.proc.args)],
            }

    def health(self, timeout: float = 2.0) -> Dict[str, Any]:
        """``info`` plus a real round trip to the server (a ping through the protocol)."""
        out = self.info()
        try:
            with Client(out["endpoint"], token=self.token, heartbeat=False, timeout=timeout) as c:
                out["ping_ms"] = c.ping()
                out["boot_id_seen"] = c.boot_id
        except Exception as e:  # noqa: BLE001  (a health report, not a failure of the actor)
            out["alive"] = False
            out["problem"] = str(e)
        return out

    def stop(self) -> None:
        self._stop.set()
        self.server.stop()
