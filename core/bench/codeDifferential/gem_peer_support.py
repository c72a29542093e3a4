"""What the GEM peers need around gem-llm 0.1.0 that its wheel does not bring.

GEM's CodeEnv and QaEnv import Hugging Face `datasets` at module level, but gem-llm 0.1.0 does not
depend on it. The peers only build an env over in-memory rows and then grade through set_state and
step, so when `datasets` is missing a minimal stand-in for `Dataset` (from_list, map, shuffle,
iteration, indexing) is enough; GEM's grading code runs unchanged either way.
"""
from __future__ import annotations

import sys
import types


class _Rows:
    def __init__(self, rows):
        self._rows = list(rows)

    @classmethod
    def from_list(cls, rows):
        return cls(rows)

    def map(self, fn, **_):
        return _Rows(fn(dict(r)) for r in self._rows)

    def shuffle(self, seed=None):
        return self

    def __iter__(self):
        return iter(self._rows)

    def __len__(self):
        return len(self._rows)

    def __getitem__(self, i):
        return self._rows[i]


def install_datasets_stub() -> None:
    try:
        import datasets  # noqa: F401
    except ImportError:
        stub = types.ModuleType("datasets")
        stub.Dataset = _Rows
        stub.DatasetDict = type("DatasetDict", (dict,), {})

        def load_dataset(*_, **__):
            raise RuntimeError("the GEM peer grades in-memory rows only")

        stub.load_dataset = load_dataset
        sys.modules["datasets"] = stub


def step_verdict(env, reply: str, out: dict) -> dict:
    """GEM's reward for `reply` into out["reward"], or what step raised into out["error"]."""
    try:
        _, reward, *_ = env.step(reply)
        out["reward"] = float(reward)
    except Exception as e:  # noqa: BLE001 - the differential records what GEM does, raising included
        out["error"] = f"{type(e).__name__}: {e}"[:300]
    return out
