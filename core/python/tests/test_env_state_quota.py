"""A history wrapper's kept turns count in the session's byte quota: stepping a never-ending env under
`concat` with big actions ends in LimitExceededError (the env named in its data), the env stays
usable, `stats` shows the count, and a reset frees it."""

from __future__ import annotations

from typing import Iterator

import pytest

import gem_ts
from gem_ts import LocalServer
from gem_ts.wrappers import WRAPPER_FACTORY

pytestmark = pytest.mark.server  # its own server, with a small byte quota

MAX = 64 * 1024
BIG = "a" * 10_000


class Echo:
    """No turn limit: the episode never ends by itself."""

    def __init__(self, **kwargs):
        pass

    def reset(self, seed=None, **kwargs):
        return "start", {}

    def step(self, action):
        return "heard " + action, 0.0, False, False, {}


@pytest.fixture(scope="module")
def quota_server() -> Iterator[LocalServer]:
    srv = LocalServer(["--max-dataset-bytes-per-client", str(MAX)])
    yield srv
    srv.stop()


def test_a_growing_history_is_refused_clearly_and_reset_frees_it(quota_server: LocalServer) -> None:
    with gem_ts.connect(quota_server.endpoint) as c:
        gem_ts.register("py:EndlessEcho-v0", Echo, client=c)
        env = WRAPPER_FACTORY["concat"](gem_ts.make("py:EndlessEcho-v0", client=c))
        env.reset()
        with pytest.raises(gem_ts.LimitExceededError) as refused:
            for _ in range(100):
                env.step(BIG)
        e = refused.value
        assert e.code == "LIMIT_EXCEEDED"
        assert {k: e.data[k] for k in ("limit", "max", "index")} == {"limit": "max_dataset_bytes_per_client", "max": MAX, "index": 0}
        assert e.data["value"] > MAX
        assert "--max-dataset-bytes-per-client" in str(e) and "reset or close" in str(e)
        held = c.stats()["client"]["env_state_bytes"]
        assert MAX - 2 * len(BIG) < held <= MAX
        env.reset()
        assert c.stats()["client"]["env_state_bytes"] == len("start")
        assert env.step("hi")[0].endswith("heard hi\n")
        env.close()
