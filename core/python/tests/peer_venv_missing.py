"""What a test does when a peer's venv (GEM's, OpenEnv's under core/bench) cannot be used: skip when
run by hand without it, fail under `npm test`, which installed it (GEM_TS_PEER_VENVS=installed), so
a broken install never passes as a skip."""

from __future__ import annotations

import os

import pytest


def skip_or_fail(why: str) -> None:
    if not why:
        return
    if os.environ.get("GEM_TS_PEER_VENVS") == "installed":
        pytest.fail(f"npm test installed the peer venvs, yet: {why}")
    pytest.skip(why)
