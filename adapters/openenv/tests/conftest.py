import os
import shutil
import socket
import threading
import time
from typing import Any, Callable

import pytest
import uvicorn
from gem_ts_openenv import serve

# No model hub here; math rows come inline through the `dataset` option.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

GAME = "game:GuessTheNumber-v0-easy"
MATH = "math:Math12K"
ROWS = [{"problem": "What is 6*7?", "answer": "42"}, {"problem": "What is 2+3?", "answer": "5"}]

needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None and os.environ.get("GEM_TS_ALLOW_UNSANDBOXED") != "1",
    reason="python_tool needs bubblewrap (npm test installs it)",
)


@pytest.fixture(scope="session")
def server():
    """One `gem-ts serve --openenv 127.0.0.1:0` for the whole run; tests pick envs by base URL."""
    with serve() as s:
        yield s


@pytest.fixture(scope="session")
def serve_app() -> Callable[[Any], str]:
    """Runs an ASGI app (OpenEnv's own ``create_app``) under uvicorn in this process; gives its base URL."""

    def serve(app: Any) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
        deadline = time.time() + 30
        while not server.started:
            assert time.time() < deadline, "OpenEnv's server did not start"
            time.sleep(0.05)
        return f"http://127.0.0.1:{port}"

    return serve
