"""``gem-ts …`` / ``python -m gem_ts …``: the gem-ts CLI (serve, list, play, eval, doctor), run with the
server this install carries (or the checkout it came from) and the Node that local_server finds."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import List, Optional

from .errors import ServerUnavailableError
from .local_server import find_cli, server_env


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        cmd = [*find_cli(), *args]
    except ServerUnavailableError as e:
        print(f"gem-ts: {e}", file=sys.stderr)
        return 1
    env = server_env()
    if os.name == "posix" and argv is None:
        # Become the server: signals (Ctrl-C, SIGTERM) and stdin reach Node with no Python in between.
        os.execve(cmd[0], cmd, env)
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
