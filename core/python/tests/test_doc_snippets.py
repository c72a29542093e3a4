"""Every code block of README.md and docs/*.md runs, as written, with Sybil.

Blocks that evaluate a model at ``http://localhost:8000/v1`` talk to a scripted OpenAI-compatible
server this module starts there (it answers every turn with ``\\boxed{5}``), so the commands run
unchanged; where port 8000 is taken they skip and say so.

Python blocks run in one namespace per page, in order (a later block may use an earlier one's names).
Shell blocks run with bash from the repository root, the root venv and node_modules/.bin first on
PATH. TypeScript blocks run with tsx inside core/, where ``@gem-ts/core`` resolves to this checkout.
A block that cannot run here (a GPU, a network service, minutes of benchmark) carries
``<!-- skip: next "why" -->`` just above it, and the reason shows in pytest's report. A block of
plain text or a wire diagram has no language tag and is not code.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import sys
import tempfile
from pathlib import Path
from typing import Iterator, List

import pytest

sybil = pytest.importorskip("sybil", reason="sybil comes with gem_ts[test]")
from sybil import Document, Example  # noqa: E402
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: One block may start servers, build packages or train for a few seconds; none may hang the suite.
BLOCK_TIMEOUT_S = 600


def _env() -> dict:
    env = dict(os.environ)
    bins = [str(Path(sys.executable).parent), str(ROOT / "node_modules" / ".bin")]
    env["PATH"] = os.pathsep.join([*bins, env.get("PATH", "")])
    return env


def _run(cmd: List[str], example: Example, cwd: Path) -> None:
    r = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
    if r.returncode != 0:
        raise AssertionError(f"{example.path}:{example.line} exited {r.returncode}\n--- stdout\n{r.stdout[-4000:]}\n--- stderr\n{r.stderr[-4000:]}")


BENCH_RESULTS = ROOT / "core" / "bench" / "results"


@contextlib.contextmanager
def _bench_results_kept() -> Iterator[None]:
    """A block may run a benchmark (`npm run bench bm25`), which writes its figures over the committed
    ones in core/bench/results: what was there is put back, so a test run never rewrites them."""
    kept = {p: p.read_bytes() for p in BENCH_RESULTS.glob("*") if p.is_file()}
    try:
        yield
    finally:
        for p, data in kept.items():
            if not p.exists() or p.read_bytes() != data:
                p.write_bytes(data)


class ShellBlockParser(CodeBlockParser):
    def evaluate(self, example: Example) -> None:
        with _bench_results_kept():
            _run(["bash", "-euo", "pipefail", "-c", example.parsed], example, ROOT)


class TypeScriptBlockParser(CodeBlockParser):
    def evaluate(self, example: Example) -> None:
        with tempfile.NamedTemporaryFile("w", suffix=".mts", dir=ROOT / "core", prefix=".snippet-", delete=False) as f:
            f.write(example.parsed)
        try:
            _run(["npx", "tsx", f.name], example, ROOT / "core")
        finally:
            os.unlink(f.name)


PARSERS = [
    SkipParser(),
    PythonCodeBlockParser(),
    *(ShellBlockParser(language=lang) for lang in ("sh", "bash", "shell", "console")),
    *(TypeScriptBlockParser(language=lang) for lang in ("ts", "typescript")),
]


def _examples() -> Iterator[object]:
    for page in PAGES:
        doc = Document.parse(str(page), *PARSERS)
        for ex in doc.examples():
            yield pytest.param(ex, id=f"{page.relative_to(ROOT)}:{ex.line}")


EXAMPLES = list(_examples())


def test_the_pages_have_code_blocks_to_run() -> None:
    # A parser that stopped matching would make every test below vanish and the suite pass; and every
    # fenced block with a language tag must be one of ours (an unknown tag would go unrun, silently).
    skipper = type(SkipParser().skipper)
    code = [p for p in EXAMPLES if not isinstance(p.values[0].region.evaluator, skipper)]  # type: ignore[attr-defined]
    assert len(code) >= 25, len(code)
    known = {"python", "sh", "bash", "shell", "console", "ts", "typescript"}
    tags = {(page.name, line.strip()[3:].strip()) for page in PAGES for line in page.read_text().splitlines() if line.strip().startswith("```") and line.strip()[3:].strip()}
    assert {t for t in tags if t[1] not in known} == set()


MODEL_URL = "http://localhost:8000/v1"


class _ScriptedModel(BaseHTTPRequestHandler):
    """chat.completions as an OpenAI-compatible server answers it; the reply is always ``\\boxed{5}``."""

    requests = 0

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        type(self).requests += 1
        reply = {
            "id": f"doc-{self.requests}",
            "object": "chat.completion",
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "\\boxed{5}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def scripted_model() -> Iterator[type]:
    try:
        server = ThreadingHTTPServer(("127.0.0.1", 8000), _ScriptedModel)
    except OSError as e:
        pytest.skip(f"port 8000 is taken ({e}): the blocks that evaluate a model there cannot run")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield _ScriptedModel
    server.shutdown()
    server.server_close()


@contextlib.contextmanager
def _fresh_eval_output(block: str) -> Iterator[None]:
    """`gem-ts eval` writes to its --out folder (./eval-results by default; evaluate() to its outDir)
    and a re-run resumes from it, so a block run a second time in one checkout would ask the model
    nothing: the block starts without that folder, and what was there before (a developer's own
    results) is put back after."""
    cli = re.search(r"--out\s+(\S+)", block)
    ts = re.search(r"outDir:\s*['\"]([^'\"]+)", block)  # TypeScript blocks run inside core/
    results = ROOT / cli.group(1) if cli else ROOT / "core" / ts.group(1) if ts else ROOT / "eval-results"
    aside = Path(tempfile.mkdtemp(prefix=".eval-results-", dir=ROOT)) / "kept"
    if results.exists():
        results.rename(aside)
    try:
        yield
    finally:
        shutil.rmtree(results, ignore_errors=True)
        if aside.exists():
            aside.rename(results)
        shutil.rmtree(aside.parent, ignore_errors=True)


@pytest.mark.timeout(BLOCK_TIMEOUT_S + 60)
@pytest.mark.parametrize("example", EXAMPLES)
def test_doc_block(example: Example, request: pytest.FixtureRequest) -> None:
    if MODEL_URL in str(example.parsed):
        model = request.getfixturevalue("scripted_model")
        before = model.requests
        with _fresh_eval_output(str(example.parsed)):
            example.evaluate()
        assert model.requests > before, "the block never asked the model"
        return
    example.evaluate()
