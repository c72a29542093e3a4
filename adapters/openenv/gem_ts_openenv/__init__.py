"""gem-ts envs for OpenEnv clients.

The OpenEnv protocol is served by the gem-ts server itself (TypeScript, ``gem-ts serve --openenv
HOST:PORT``); no Python sits between an OpenEnv client and the envs. This package only starts that
server for a Python process and tells its clients where to connect::

    from openenv.core import GenericEnvClient
    from gem_ts_openenv import serve

    with serve() as server, GenericEnvClient(base_url=server.base_url("game:GuessTheNumber-v0-easy")).sync() as env:
        result = env.reset(seed=3)
        result = env.step({"message": "\\\\boxed{5}"})

``GemTsEnv`` is the same client with typed results (``GemTsAction(message=...)``,
``result.observation.text``), as OpenEnv env packages ship one. A server started elsewhere (``npx gem-ts serve --openenv 0.0.0.0:8000``) needs none of this: point
the client at ``http://HOST:8000/envs/<env id>``.
"""

from .client import GemTsAction, GemTsEnv, GemTsObservation, GemTsState
from .server import OpenEnvServer, serve

__all__ = ["GemTsAction", "GemTsEnv", "GemTsObservation", "GemTsState", "OpenEnvServer", "serve"]
