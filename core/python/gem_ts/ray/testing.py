"""A local multi-node Ray cluster for tests and benchmarks (``ray.cluster_utils.Cluster``: one raylet
per node on this machine, each with its own node id), connected to this process."""

from __future__ import annotations

from typing import Any, List, Tuple

import ray
from ray.cluster_utils import Cluster

#: Ray waits a fixed 30 s for a raylet to register; on a loaded machine that can pass, so try again.
ATTEMPTS = 3


def start_local_cluster(nodes: int = 3, num_cpus: float = 1) -> Tuple[Any, List[Any]]:
    """(cluster, worker nodes): a head and ``nodes - 1`` more raylets, ``num_cpus`` each; ``ray.init``
    done. Stop it with ``stop_local_cluster``."""
    for attempt in range(ATTEMPTS):
        cluster = None
        try:
            cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": num_cpus, "include_dashboard": False})
            workers = [cluster.add_node(num_cpus=num_cpus) for _ in range(nodes - 1)]
            ray.init(address=cluster.address, log_to_driver=False)
            cluster.wait_for_nodes()
            return cluster, workers
        except Exception:
            if ray.is_initialized():
                ray.shutdown()
            if cluster is not None:
                cluster.shutdown()
            if attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def stop_local_cluster(cluster: Any) -> None:
    ray.shutdown()
    cluster.shutdown()
