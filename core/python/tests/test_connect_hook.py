"""``gem_ts.connect(x)`` for an object that knows how to connect to itself (``gem_ts.ray.EnvServerPool``
does): the client layer calls its ``__gem_ts_connect__`` and never imports the Ray layer above it."""

from __future__ import annotations

from typing import Any, Dict

import gem_ts


class SelfConnecting:
    def __init__(self) -> None:
        self.calls: list[Dict[str, Any]] = []

    def __gem_ts_connect__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return "a client"


def test_connect_hands_an_object_with_the_hook_its_keyword_arguments() -> None:
    target = SelfConnecting()
    assert gem_ts.connect(target, token="t", timeout=3.0) == "a client"
    assert target.calls == [{"token": "t", "timeout": 3.0}]


def test_the_ray_pool_has_the_hook_and_register_dataset_is_public() -> None:
    import importlib.util

    assert callable(gem_ts.register_dataset)
    if importlib.util.find_spec("ray") is not None:
        from gem_ts.ray import EnvServerPool

        assert callable(getattr(EnvServerPool, "__gem_ts_connect__", None))
