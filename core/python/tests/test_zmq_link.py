"""gem_ts.zmq_link: the ZeroMQ client link takes its receive timeout per call, as the stream link does."""

from __future__ import annotations

import os
import tempfile
import time
from types import SimpleNamespace

from gem_ts.zmq_link import ZmqLink


def test_recv_waits_the_timeout_it_is_given_not_the_one_it_was_built_with() -> None:
    with tempfile.TemporaryDirectory() as d:
        session = SimpleNamespace(endpoint=f"ipc://{os.path.join(d, 'nobody.sock')}")
        link = ZmqLink(session, b"py-", 0.05)
        try:
            t0 = time.monotonic()
            assert link.recv(0.6) is None  # nobody there: no message, after about 0.6 s, not 0.05
            waited = time.monotonic() - t0
            assert waited >= 0.5, waited
            t0 = time.monotonic()
            assert link.recv(0.0) is None  # and back to not waiting at all
            assert time.monotonic() - t0 < waited
        finally:
            link.close()
