"""What a gem_ts.aio client sends, for the aio tests: the op of every request from now on."""

from __future__ import annotations

from typing import Any, List

from gem_ts import aio


def count_requests(c: aio.AsyncClient) -> List[str]:
    """The op of every request the client sends from now on (each one goes through Session.frame)."""
    sent: List[str] = []
    frame = c.session.frame

    def counting(call: Any, now: float) -> Any:
        sent.append(call.op)
        return frame(call, now)

    c.session.frame = counting  # type: ignore[method-assign]
    return sent
