"""Progress output: a one-line bar on a terminal, plain periodic lines otherwise (CI logs)."""
from __future__ import annotations

import sys
import time


class Log:
    def __init__(self, quiet: bool = False) -> None:
        self.tty = sys.stderr.isatty()
        self.quiet = quiet
        self._last = 0.0

    def progress(self, label: str, done: int, total: int, extra: str = "") -> None:
        if self.quiet:
            return
        width = 24
        fill = int(width * done / max(total, 1))
        line = f"{label} [{'█' * fill}{'·' * (width - fill)}] {done}/{total} {extra}"
        if self.tty:
            sys.stderr.write("\r" + line[:160].ljust(160))
            sys.stderr.flush()
        elif done == total or time.time() - self._last > 10:
            self._last = time.time()
            print(line, file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.tty and not self.quiet:
            sys.stderr.write("\n")

    def info(self, msg: str) -> None:
        if not self.quiet:
            print(msg, flush=True)
