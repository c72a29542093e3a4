"""gem-ts on Ray (``pip install gem-ts[ray]``): one env server per node, found by name, supervised.

``EnvServerPool`` places a gem-ts server on each node as a Ray actor; ``pool.connect()`` gives a
client of the caller's own node's server (``gem_ts.ray.connect(pool)``
makes it the default client, for ``gem_ts.make``); ``pool.make_vec(env_id, num_envs)`` shards one vector env
over the servers, with lost envs reported (``EnvLostError`` / ``info["env_lost"]``) when one dies.
See docs/scale.md.
"""

from .pool import NAMESPACE, EnvServerPool, connect, current_node_id
from .sharded import EnvLostError, ShardedVectorEnv

__all__ = ["NAMESPACE", "EnvLostError", "EnvServerPool", "ShardedVectorEnv", "connect", "current_node_id"]
