"""The shell recipes of docs/interop.md, read from the page itself so that a test runs them verbatim.

Each stack's section (`## verifiers`, `## NeMo Gym`, …) opens with a ```sh block: install, then use.
The doc-snippet test skips the ones that need an adapter venv or a model endpoint; each adapter's own
suite runs its recipe here, from the repository root, as a user would paste it.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Mapping, Optional

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "interop.md"


def recipe(section: str) -> str:
    """The first ```sh block under the `## <section>` heading of docs/interop.md."""
    text = PAGE.read_text()
    start = re.search(rf"^## {re.escape(section)}\s*$", text, re.M)
    if not start:
        raise LookupError(f"docs/interop.md has no section '## {section}'")
    rest = text[start.end():]
    end = re.search(r"^## ", rest, re.M)
    block = re.search(r"^```sh\n(.*?)^```", rest[: end.start() if end else len(rest)], re.M | re.S)
    if not block:
        raise LookupError(f"docs/interop.md's '## {section}' has no ```sh block")
    return block.group(1)


def run_recipe(section: str, env: Optional[Mapping[str, str]] = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """Runs the section's recipe with bash (-e: a failing line fails it) in the repository root."""
    return subprocess.run(
        ["bash", "-e", "-c", recipe(section)],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
