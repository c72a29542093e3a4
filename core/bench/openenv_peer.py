#!/usr/bin/env python3
"""OpenEnv peer benchmark: gem-ts's OpenEnv front door against OpenEnv's own server, same game, one run.

Both servers speak OpenEnv 0.10's WebSocket protocol and serve GuessTheNumber (1–10, 4 turns):

- gem-ts: ``gem-ts serve --openenv 127.0.0.1:0`` playing ``game:GuessTheNumber-v0-easy``.
- OpenEnv: ``openenv.core.env_server.create_app`` (FastAPI under uvicorn, one process, web UI off)
  over a Python Environment written here with the same rules: the target from ``random.Random(seed)``,
  a ``\\boxed{n}`` guess per step, reward 1 and done on a hit, done after 4 turns. It implements
  ``reset_async``/``step_async``, OpenEnv's fastest path (no executor thread per call), and allows
  as many concurrent sessions as asked.

For each of 1, 16, 64 and 256 sessions: the sessions are spread over client processes (WebSocket
clients sending the JSON messages openenv's EnvClient sends, the same client code for both servers;
see the clients' note below), each session loops step (a random guess) → on done, reset; after a
warm-up, env steps are counted for a window that every process shares. Reported: env-steps/s, step
round-trip p50/p99 (ms), the CPU time per counted step of the server process (all its threads) and of
the client processes inside that window (robust to what else runs on the machine; a step's share of
the resets included), and the server's memory per 1,000 sessions (its RSS with 1,000 open, reset
sessions minus its RSS with none). The ratios gem-ts / OpenEnv are what issue 28 asks for (≥ 1× at 1
session, ≥ 3× at 64 and 256, ≤ 0.2× the memory per session).

    .venv/bin/python core/bench/openenv_peer.py                    # 3 s windows, JSON + table
    .venv/bin/python core/bench/openenv_peer.py --seconds 1 --sizes 1,64,256 --memory-sessions 0  # quicker, noisier
    .venv/bin/python core/bench/openenv_peer.py --client raw         # the raw Python client (the default until the node one)
    .venv/bin/python core/bench/openenv_peer.py --client websockets  # the websockets library's client instead
    .venv/bin/python core/bench/openenv_peer.py --check-clients 25 --sizes 1,4  # raw and node play the same sessions?

The OpenEnv side runs in this benchmark's own venv (core/bench/.venv-openenv, openenv==0.10.0 and
uvicorn, made on first run); the Python clients run there too, the node client under the checkout's
tsx. Results: core/bench/results/openenv_peer.json (`--out` elsewhere), with the client that drove
both servers in its "client" field. The clients share the machine with the server under test: on few
cores, say so next to the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import json
import os
import platform
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from peer_venv import ensure_peer_venv

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VENV = HERE / ".venv-openenv"
PINS = ["openenv==0.10.0", "uvicorn", "websockets"]
RESULTS = HERE / "results" / "openenv_peer.json"
GAME = "game:GuessTheNumber-v0-easy"
SIZES = [1, 16, 64, 256]
MEMORY_SESSIONS = 1000


# ── OpenEnv's own server over the same game (runs in .venv-openenv) ─────────────────────────────


def serve_peer(port: int, max_sessions: int) -> None:
    import uvicorn
    from openenv.core.env_server.http_server import create_app
    from openenv.core.env_server.types import Action, Observation, State

    class GuessAction(Action):
        message: str

    class GuessObservation(Observation):
        text: str = ""

    from openenv.core.env_server.interfaces import Environment

    class Game(Environment):
        """Same rules as gem-ts's easy GuessTheNumber: 1..10, four turns, reward 1 on the hit."""

        SUPPORTS_CONCURRENT_SESSIONS = True

        def __init__(self) -> None:
            super().__init__()
            self._state = State()
            self.target = 0
            self.turn = 0

        def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> GuessObservation:
            self.target = random.Random(seed).randint(1, 10)
            self.turn = 0
            self._state = State(episode_id=episode_id, step_count=0)
            return GuessObservation(text="I am thinking of a number between 1 and 10. You have 4 turns. Answer in \\boxed{}.")

        async def reset_async(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> GuessObservation:
            return self.reset(seed, episode_id)

        def step(self, action: GuessAction, timeout_s: Optional[float] = None, **kwargs: Any) -> GuessObservation:  # type: ignore[override]
            self.turn += 1
            self._state.step_count += 1
            m = re.findall(r"\\boxed\{\s*(-?\d+)\s*\}", action.message)
            if not m:
                return GuessObservation(text="No guess in \\boxed{}.", reward=-0.1, done=True)
            g = int(m[-1])
            if g == self.target:
                return GuessObservation(text=f"Congratulations! You guessed {g}.", reward=1.0, done=True)
            hint = "higher" if g < self.target else "lower"
            return GuessObservation(text=f"At turn {self.turn}, you guessed {g}; the number is {hint}.", reward=0.0, done=self.turn >= 4)

        async def step_async(self, action: GuessAction, timeout_s: Optional[float] = None, **kwargs: Any) -> GuessObservation:  # type: ignore[override]
            return self.step(action)

        @property
        def state(self) -> State:
            return self._state

    app = create_app(Game, GuessAction, GuessObservation, env_name="guess_the_number", max_concurrent_envs=max_sessions)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=16 * 1024 * 1024)


# ── clients (the Python ones run in .venv-openenv) ───────────────────────────────────────────────
#
# The clients send openenv's EnvClient messages in the same order to either server, one session per
# socket: reset (seed), then step (a random guess) → on done, reset with a fresh seed; at the end
# {"type": "close"}. They differ only in what a message costs the client process:
# - "raw": a WebSocket client on asyncio's Protocol API, its frames written and read here
#   (RFC 6455: masked text frames out, a fresh mask key each; pings answered; fragments joined; the
#   handshake's accept key checked). No coroutine or future per message, so on few cores it leaves the
#   CPU to the server under test. It offers no compression extension, to either server.
# - "node" (the default): core/bench/openenvPeerClient.ts, the raw client's loop and framing in Node
#   (node:net, one read buffer for all its sockets, no stream machinery on the way in), the same
#   messages byte for byte: Python's Mersenne Twister is redone there, so the same seeds draw the same
#   guesses and reset seeds. Same worker count (min(sessions, CPUs) processes), windows, latency cap
#   and report line. On 2 cores it spent 45-65 µs of CPU per step against gem-ts and 64-115 against
#   OpenEnv, the raw client 156-223 and 187-267 (most of either is the kernel's loopback send and
#   receive): less than either server's own CPU per step, where the raw client's is more than gem-ts's,
#   so the run measures the servers rather than the client.
#   `--check-clients STEPS` plays STEPS steps per session with both, no timing, and compares each
#   session's tally (reset replies, step replies, episodes, reward sum) on both servers.
# - "websockets": the websockets library's asyncio client (what openenv's EnvClient uses). It costs
#   more CPU per message than either server's side of it did on 2 cores, so the servers shared the
#   cores with it; it offers permessage-deflate, which uvicorn accepts and ws (gem-ts) does not.
#
# Every client reports each session's tally; the parent stops the run if a session got no reset reply.

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _step_text(rng: random.Random) -> str:
    return json.dumps({"type": "step", "data": {"message": f"\\boxed{{{rng.randint(1, 10)}}}"}})


# The ten step messages a guess can make, encoded once (the raw client sends these bytes).
_STEP_BYTES = [json.dumps({"type": "step", "data": {"message": f"\\boxed{{{g}}}"}}).encode() for g in range(1, 11)]


def _reset_text(seed: int) -> str:
    return json.dumps({"type": "reset", "data": {"seed": seed}})


class _RawSession(asyncio.Protocol):
    """One session over a hand-framed WebSocket, played by callbacks (see the clients' note above)."""

    def __init__(self, host: str, path: str, seed: int, warm_until: float, stop_at: float, out: Dict[str, Any], done: "asyncio.Future[None]") -> None:
        self.host, self.path, self.seed = host, path, seed
        self.warm_until, self.stop_at, self.out, self.done = warm_until, stop_at, out, done
        self.rng = random.Random(seed)
        # [seed, reset replies, step replies, episodes ended, reward sum]: the parent's checks.
        self.tally: List[Any] = [seed, 0, 0, 0, 0.0]
        out["sessions"].append(self.tally)
        self.buf = bytearray()
        self.frags: List[bytes] = []
        self.upgraded = False
        self.asked = ""  # the type of the message waiting for its reply
        self.t0 = 0.0
        self.closing = False
        self.key = ""
        self.transport: Optional[asyncio.Transport] = None

    # frames

    def write_frame(self, opcode: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | opcode, 0xFE)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0xFF)) + n.to_bytes(8, "big")
        key = random.getrandbits(32).to_bytes(4, "big")
        if n:
            mask = (key * ((n >> 2) + 1))[:n]
            payload = (int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
        self.transport.write(head + key + payload)  # type: ignore[union-attr]

    def ask(self, kind: str, payload: bytes) -> None:
        self.asked = kind
        self.t0 = time.perf_counter()
        self.write_frame(0x1, payload)

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {self.key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.transport.write(request.encode())  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
            del buf[: end + 4]
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
            accept = base64.b64encode(hashlib.sha1((self.key + WS_GUID).encode()).digest()).decode()
            if lines[0].split(" ")[1:2] != ["101"] or headers.get("sec-websocket-accept") != accept:
                return self.fail(RuntimeError(f"WebSocket handshake refused: {lines[0]}"))
            self.upgraded = True
            self.ask("reset", _reset_text(self.seed).encode())
        while len(buf) >= 2:
            b0, n = buf[0], buf[1]
            if n & 0x80:
                return self.fail(RuntimeError("the server sent a masked frame"))
            at = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            opcode = b0 & 0x0F
            if opcode == 0x9:
                self.write_frame(0xA, payload)
            elif opcode == 0x8:
                if not self.closing:
                    self.closing = True
                    self.write_frame(0x8, payload[:2])
                self.transport.close()  # type: ignore[union-attr]
                return
            elif opcode != 0xA:
                self.frags.append(payload)
                if b0 & 0x80:
                    message = payload if len(self.frags) == 1 else b"".join(self.frags)
                    self.frags = []
                    self.on_message(message)

    def connection_lost(self, exc: Optional[Exception]) -> None:
        if not self.done.done():
            if self.closing:
                self.done.set_result(None)
            else:
                self.done.set_exception(RuntimeError(f"the server closed the session early ({exc})"))

    # the session's loop

    def on_message(self, message: bytes) -> None:
        t1 = time.perf_counter()
        if self.closing:
            return  # the close has been sent: a late reply is not played
        reply = json.loads(message)
        if reply.get("type") == "error":
            return self.fail(RuntimeError(reply["data"]))
        if reply.get("type") != "observation" or "data" not in reply:
            return self.fail(RuntimeError(f"an unexpected reply: {message[:200]!r}"))
        tally = self.tally
        if self.asked == "step":
            tally[2] += 1
            if self.t0 >= self.warm_until:
                self.out["steps"] += 1
                if len(self.out["lat"]) < 20000:
                    self.out["lat"].append((t1 - self.t0) * 1e3)
            reward = reply["data"].get("reward")
            if isinstance(reward, (int, float)):
                tally[4] += reward
            if reply["data"]["done"]:
                tally[3] += 1
                return self.ask("reset", _reset_text(self.rng.randint(0, 1 << 30)).encode())
        else:
            tally[1] += 1
        max_steps = self.out["max_steps"]
        if (tally[2] >= max_steps) if max_steps else (t1 >= self.stop_at):
            self.closing = True
            self.write_frame(0x1, json.dumps({"type": "close"}).encode())
            self.write_frame(0x8, (1000).to_bytes(2, "big"))
            return
        self.ask("step", _STEP_BYTES[self.rng.randint(1, 10) - 1])

    def fail(self, e: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(e)
        if self.transport is not None:
            self.transport.abort()


async def _raw_session(url: str, warm_until: float, stop_at: float, out: Dict[str, Any], seed: int) -> None:
    from urllib.parse import urlsplit

    u = urlsplit(url)
    loop = asyncio.get_running_loop()
    done: "asyncio.Future[None]" = loop.create_future()
    await loop.create_connection(lambda: _RawSession(u.netloc, u.path + (f"?{u.query}" if u.query else ""), seed, warm_until, stop_at, out, done), u.hostname, u.port)
    await asyncio.wait_for(done, timeout=max(30.0, stop_at - time.perf_counter() + 30.0))


async def _websockets_session(url: str, warm_until: float, stop_at: float, out: Dict[str, Any], seed: int) -> None:
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    tally: List[Any] = [seed, 0, 0, 0, 0.0]  # as _RawSession's
    out["sessions"].append(tally)
    max_steps = out["max_steps"]
    async with connect(url, max_size=None, ping_interval=None, proxy=None) as ws:

        async def ask(text: str) -> Dict[str, Any]:
            await ws.send(text)
            reply = json.loads(await ws.recv())
            if reply.get("type") == "error":
                raise RuntimeError(reply["data"])
            return reply

        await ask(_reset_text(seed))
        tally[1] += 1
        while True:
            t0 = time.perf_counter()
            if (tally[2] >= max_steps) if max_steps else (t0 >= stop_at):
                break
            reply = await ask(_step_text(rng))
            t1 = time.perf_counter()
            tally[2] += 1
            if t0 >= warm_until:
                out["steps"] += 1
                if len(out["lat"]) < 20000:
                    out["lat"].append((t1 - t0) * 1e3)
            reward = reply["data"].get("reward")
            if isinstance(reward, (int, float)):
                tally[4] += reward
            if reply["data"]["done"]:
                tally[3] += 1
                await ask(_reset_text(rng.randint(0, 1 << 30)))
                tally[1] += 1
        await ws.send(json.dumps({"type": "close"}))


CLIENTS = {"raw": _raw_session, "websockets": _websockets_session}
# "node": core/bench/openenvPeerClient.ts, one Node process per worker, framed by hand like "raw" and
# playing the same messages (Python's Mersenne Twister redone there, so the same seeds draw the same
# guesses and reset seeds); `--check-clients` compares the two session by session.
NODE_CLIENT = HERE / "openenvPeerClient.ts"
CLIENT_KINDS = sorted([*CLIENTS, "node"])


def client_worker(kind: str, url: str, sessions: int, warm_until: float, stop_at: float, first_seed: int, max_steps: int = 0) -> None:
    """Plays `sessions` sessions until `stop_at` (or `max_steps` step replies each, when > 0), counting
    steps sent from `warm_until` on (times on time.perf_counter's clock, which is CLOCK_MONOTONIC and so
    the same in every process here); prints the steps, latencies, this process's CPU seconds inside that
    window and each session's tally ([seed, reset replies, step replies, episodes ended, reward sum])."""
    out: Dict[str, Any] = {"steps": 0, "lat": [], "sessions": [], "max_steps": max_steps}
    cpu: Dict[str, float] = {}

    async def main() -> None:
        loop = asyncio.get_running_loop()
        # loop.time() is time.monotonic(): the same clock as perf_counter on Linux.
        shift = time.perf_counter() - loop.time()
        loop.call_at(warm_until - shift, lambda: cpu.__setitem__("from", time.process_time()))
        loop.call_at(stop_at - shift, lambda: cpu.__setitem__("to", time.process_time()))
        await asyncio.gather(*(CLIENTS[kind](url, warm_until, stop_at, out, first_seed + k) for k in range(sessions)))
        cpu.setdefault("from", time.process_time())
        cpu.setdefault("to", time.process_time())

    asyncio.run(main())
    print(json.dumps({"steps": out["steps"], "lat": out["lat"], "cpu_s": cpu["to"] - cpu["from"], "sessions": out["sessions"]}))


def hold_sessions(url: str, count: int, ready_file: str) -> None:
    """Opens `count` sessions, resets each, writes `ready_file`, and holds them until stdin closes."""
    from websockets.asyncio.client import connect

    async def main() -> None:
        sockets = []
        for k in range(count):
            ws = await connect(url, max_size=None, ping_interval=None, proxy=None)
            await ws.send(json.dumps({"type": "reset", "data": {"seed": k}}))
            reply = json.loads(await ws.recv())
            if reply.get("type") != "observation":
                raise RuntimeError(reply)
            sockets.append(ws)
        Path(ready_file).write_text("ready")
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        for ws in sockets:
            await ws.close()

    asyncio.run(main())


# ── orchestration (any Python) ───────────────────────────────────────────────────────────────────


def with_children(pid: int) -> List[int]:
    """`pid` and its children (uvicorn runs in one process; node may start workers)."""
    try:
        return [pid] + [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return [pid]


def rss_bytes(pid: int) -> int:
    """Resident memory of `pid` and its children."""
    total = 0
    for p in with_children(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Server:
    def __init__(self, name: str, cmd: List[str], url_of, exits_with_stdin: bool = False) -> None:
        import tempfile

        self.name = name
        self.exits_with_stdin = exits_with_stdin
        # stderr to a file: a pipe nobody reads would stall a server that logs more than its buffer.
        self.log = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.ws_url = url_of(self)

    def stderr_tail(self) -> str:
        self.log.seek(0)
        return self.log.read()[-3000:]

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            if self.exits_with_stdin:
                # Its own close first (a node --cpu-prof profile is written on that exit, not on SIGTERM).
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass
            if self.proc.poll() is None:
                self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gem_ts(max_sessions: int) -> Server:
    node = os.environ.get("GEM_TS_NODE", "node")
    # GEM_TS_NODE_ARGS: extra node flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server;
    # GEM_TS_BIN: another checkout's core/bin/gem-ts.js (a before/after run on the same clients).
    node_args = os.environ.get("GEM_TS_NODE_ARGS", "").split()
    gem_ts = os.environ.get("GEM_TS_BIN", str(ROOT / "core" / "bin" / "gem-ts.js"))
    cmd = [node, *node_args, gem_ts, "serve", "--openenv", "127.0.0.1:0", "--openenv-max-sessions", str(max_sessions), "--exit-with-stdin"]

    def url_of(server: Server) -> str:
        for line in server.proc.stdout:  # type: ignore[union-attr]
            if line.startswith("GEM_TS_OPENENV_URL="):
                return line.split("=", 1)[1].strip().replace("http://", "ws://") + f"/envs/{GAME}/ws"
        raise SystemExit(f"gem-ts serve did not start:\n{server.stderr_tail()}")

    return Server("gem-ts", cmd, url_of, exits_with_stdin=True)


def start_openenv(py: Path, max_sessions: int) -> Server:
    port = free_port()
    cmd = [str(py), __file__, "--serve-peer", str(port), "--max-sessions", str(max_sessions)]

    def url_of(server: Server) -> str:
        import urllib.request

        deadline = time.time() + 60
        while time.time() < deadline:
            if server.proc.poll() is not None:
                raise SystemExit(f"OpenEnv's server exited:\n{server.stderr_tail()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1):
                    return f"ws://127.0.0.1:{port}/ws"
            except OSError:
                time.sleep(0.2)
        raise SystemExit("OpenEnv's server did not answer /health within 60 s")

    return Server("openenv", cmd, url_of)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` (all its threads) and its children, in seconds."""
    ticks = 0
    for p in with_children(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def worker_cmd(py: Path, client: str, url: str, sessions: int, warm_until: float, stop_at: float, first_seed: int, max_steps: int) -> List[str]:
    """One client worker process: `sessions` sessions, seeds first_seed, first_seed + 1, …"""
    args = [url, str(sessions), repr(warm_until), repr(stop_at), str(first_seed), str(max_steps)]
    if client == "node":
        # tsx from the repository's node_modules (the command runs with cwd=ROOT); GEM_TS_NODE as for the server.
        return [os.environ.get("GEM_TS_NODE", "node"), "--import", "tsx", str(NODE_CLIENT), *args]
    return [str(py), __file__, "--client-worker", client, *args]


def run_clients(py: Path, server: "Server", client: str, per: List[int], warm_until: float, stop_at: float, max_steps: int = 0, during=None) -> List[Dict[str, Any]]:
    """Starts one worker per entry of `per` (that many sessions each; worker k's seeds from 1000·k),
    calls `during()` while they run, and returns their reports, having checked that each session
    reported and got its reset reply (a worker fails on an error reply or an early close)."""
    procs = [
        subprocess.Popen(worker_cmd(py, client, server.ws_url, n, warm_until, stop_at, 1000 * k, max_steps), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        for k, n in enumerate(per)
        if n > 0
    ]
    if during is not None:
        during()
    reports = []
    for n, p in zip([n for n in per if n > 0], procs):
        out, err = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"{client} client worker failed against {server.name}:\n{err[-3000:]}")
        r = json.loads(out.strip().splitlines()[-1])
        if len(r["sessions"]) != n or any(t[1] < 1 for t in r["sessions"]):
            raise SystemExit(f"{client} client against {server.name}: {n} sessions, reports {r['sessions'][:8]} (a session without its reset reply)")
        reports.append(r)
    return reports


def split(sessions: int, workers: int) -> List[int]:
    return [sessions // workers + (1 if k < sessions % workers else 0) for k in range(workers)]


# Time a worker may take to start and connect before the window opens. A node worker compiles its
# TypeScript through tsx first: on 2 busy cores that took more than a second, its window had closed
# before its first step, and a run counted no step at all.
WORKER_START_S = {"python": 1.0, "node": 3.0}


def throughput(py: Path, server: Server, sessions: int, seconds: float, warmup: float, workers: int, client: str) -> Dict[str, float]:
    import statistics

    # One window for every process (perf_counter is CLOCK_MONOTONIC, shared by the processes): time
    # for the workers to start and connect, the warm-up, then the counted window.
    warm_until = time.perf_counter() + WORKER_START_S[client if client == "node" else "python"] + warmup
    stop_at = warm_until + seconds
    server_cpu = 0.0

    def during() -> None:
        nonlocal server_cpu
        time.sleep(max(0.0, warm_until - time.perf_counter()))
        server_cpu = cpu_seconds(server.proc.pid)
        time.sleep(max(0.0, stop_at - time.perf_counter()))
        server_cpu = cpu_seconds(server.proc.pid) - server_cpu

    reports = run_clients(py, server, client, split(sessions, workers), warm_until, stop_at, during=during)
    steps, lat, client_cpu, episodes = 0, [], 0.0, 0
    for r in reports:
        steps += r["steps"]
        lat += r["lat"]
        client_cpu += r["cpu_s"]
        episodes += sum(t[3] for t in r["sessions"])
    lat.sort()
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] if lat else float("nan")  # noqa: E731
    per_step = lambda cpu: cpu / steps * 1e6 if steps else float("nan")  # noqa: E731
    return {
        "steps_per_s": steps / seconds,
        "p50_ms": q(0.50),
        "p99_ms": q(0.99),
        "mean_ms": statistics.fmean(lat) if lat else float("nan"),
        # CPU time per counted step (its share of the resets included), robust to what else runs.
        "server_cpu_us_per_step": per_step(server_cpu),
        "client_cpu_us_per_step": per_step(client_cpu),
        # Whole run (warm-up included): every session got its reset reply (checked), episodes ended.
        "sessions_reset": sum(len(r["sessions"]) for r in reports),
        "episodes": episodes,
    }


def check_clients(py: Path, server: Server, sessions: int, workers: int, steps: int, clients: List[str]) -> Dict[str, Any]:
    """Each client plays `steps` step replies per session against `server`, same seeds; the session
    tallies (reset replies, step replies, episodes, reward sum) must agree across clients, since the
    same seeds draw the same guesses and the server's replies decide the rest."""
    now = time.perf_counter()
    tallies = {}
    for client in clients:
        reports = run_clients(py, server, client, split(sessions, workers), now, now + 600.0, max_steps=steps)
        tallies[client] = sorted(tuple(t) for r in reports for t in r["sessions"])
    first = tallies[clients[0]]
    return {
        "same": all(t == first for t in tallies.values()),
        "sessions": len(first),
        "episodes": {c: sum(t[3] for t in v) for c, v in tallies.items()},
        "rewards": {c: sum(t[4] for t in v) for c, v in tallies.items()},
        "tallies": tallies,
    }


def memory_per_1000(py: Path, server: Server, count: int) -> float:
    base = rss_bytes(server.proc.pid)
    ready = Path(f"/tmp/openenv_peer_ready_{os.getpid()}_{server.name}")
    ready.unlink(missing_ok=True)
    holder = subprocess.Popen([str(py), __file__, "--hold", server.ws_url, str(count), str(ready)], stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while not ready.exists():
        if holder.poll() is not None:
            raise SystemExit(f"holding {count} sessions on {server.name} failed:\n{holder.stderr.read()[-3000:]}")  # type: ignore[union-attr]
        if time.time() > deadline:
            holder.kill()
            raise SystemExit(f"holding {count} sessions on {server.name} took over 300 s")
        time.sleep(0.2)
    time.sleep(1.0)
    held = rss_bytes(server.proc.pid)
    holder.stdin.close()  # type: ignore[union-attr]
    holder.wait(60)
    ready.unlink(missing_ok=True)
    return (held - base) / count * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--workers", type=int, default=0, help="client processes (default: min(sessions, CPUs))")
    ap.add_argument("--memory-sessions", type=int, default=MEMORY_SESSIONS, help="0 skips the memory check")
    ap.add_argument("--client", choices=CLIENT_KINDS, default="node", help="the client both servers are driven by (see the clients' note in this file)")
    ap.add_argument("--only", choices=["gem-ts", "openenv"], help="run one server (prints its figures; writes no results file)")
    ap.add_argument("--out", default=str(RESULTS), help="where the results JSON goes")
    ap.add_argument(
        "--check-clients",
        type=int,
        metavar="STEPS",
        help="no timing: the raw and node clients each play STEPS steps per session on each server at each size; "
        "their per-session tallies must agree (prints them; exit 1 if not)",
    )
    ap.add_argument("--serve-peer", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--max-sessions", type=int, default=4096, help=argparse.SUPPRESS)
    ap.add_argument("--client-worker", nargs=7, help=argparse.SUPPRESS)
    ap.add_argument("--hold", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.serve_peer:
        return serve_peer(a.serve_peer, a.max_sessions)
    if a.client_worker:
        kind, url, n, warm_until, stop_at, seed, max_steps = a.client_worker
        return client_worker(kind, url, int(n), float(warm_until), float(stop_at), int(seed), int(max_steps))
    if a.hold:
        return hold_sessions(a.hold[0], int(a.hold[1]), a.hold[2])

    sizes = [int(s) for s in a.sizes.split(",")]
    # The OpenEnv venv runs OpenEnv's server, the Python clients and the memory check's holder; gem-ts
    # alone driven by the node client needs none of them.
    needs_venv = a.only != "gem-ts" or a.client != "node" or bool(a.memory_sessions) or bool(a.check_clients)
    py = ensure_peer_venv(VENV, PINS) if needs_venv else Path(sys.executable)
    cap = max(sizes + [a.memory_sessions]) + 16
    results: Dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "seconds": a.seconds,
        "client": a.client,
        "load_before": os.getloadavg(),
    }
    starts = {"gem-ts": lambda: start_gem_ts(cap), "openenv": lambda: start_openenv(py, cap)}
    names = [name for name in starts if not a.only or name == a.only]
    servers: Dict[str, Server] = {}
    if a.check_clients:
        checks: Dict[str, Any] = {}
        try:
            for name in names:
                servers[name] = starts[name]()
                for n in sizes:
                    workers = a.workers or max(1, min(n, os.cpu_count() or 1))
                    checks[f"{name} {n}"] = c = check_clients(py, servers[name], n, workers, a.check_clients, ["raw", "node"])
                    print(f"{name:8s} {n:4d} sessions × {a.check_clients} steps: clients agree: {c['same']}; episodes {c['episodes']}; rewards {c['rewards']}", file=sys.stderr)
        finally:
            for server in servers.values():
                server.close()
        print(json.dumps(checks))
        if not all(c["same"] for c in checks.values()):
            raise SystemExit("the raw and node clients' session tallies differ")
        return
    try:
        for name in names:
            servers[name] = starts[name]()
            results[name] = {}
        # Size by size, one server then the other (the idle one waits on its sockets): what else runs on
        # the machine drifts less between the two than between two whole passes.
        for n in sizes:
            workers = a.workers or max(1, min(n, os.cpu_count() or 1))
            for name in names:
                r = results[name][str(n)] = throughput(py, servers[name], n, a.seconds, a.warmup, workers, a.client)
                print(
                    f"{name:8s} {n:4d} sessions: {r['steps_per_s']:10.0f} steps/s  p50 {r['p50_ms']:.2f} ms  p99 {r['p99_ms']:.2f} ms  "
                    f"CPU µs/step: server {r['server_cpu_us_per_step']:.0f}, clients ({a.client}) {r['client_cpu_us_per_step']:.0f}",
                    file=sys.stderr,
                )
        if a.memory_sessions:
            for name in names:
                results[name]["memory_per_1000_sessions_bytes"] = memory_per_1000(py, servers[name], a.memory_sessions)
    finally:
        for server in servers.values():
            server.close()
    results["load_after"] = os.getloadavg()
    if a.only:
        print(json.dumps(results[a.only], indent=2))
        return

    g, o = results["gem-ts"], results["openenv"]
    results["ratios"] = {str(n): g[str(n)]["steps_per_s"] / max(o[str(n)]["steps_per_s"], 1e-9) for n in sizes}
    if a.memory_sessions:
        results["ratios"]["memory"] = g["memory_per_1000_sessions_bytes"] / max(o["memory_per_1000_sessions_bytes"], 1)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"client: {a.client}; load average before {results['load_before'][0]:.2f}, after {results['load_after'][0]:.2f}")
    print(
        f"{'sessions':>8} | {'gem-ts steps/s':>14} | {'OpenEnv steps/s':>15} | {'ratio':>6} | {'gem-ts p50/p99 ms':>17} | {'OpenEnv p50/p99 ms':>18} | "
        f"{'server CPU µs/step gem-ts / OpenEnv':>35} | {'client CPU µs/step':>18}"
    )
    for n in sizes:
        gs, os_ = g[str(n)], o[str(n)]
        print(
            f"{n:>8} | {gs['steps_per_s']:>14.0f} | {os_['steps_per_s']:>15.0f} | {results['ratios'][str(n)]:>5.2f}× | {gs['p50_ms']:>7.2f} / {gs['p99_ms']:<7.2f} | "
            f"{os_['p50_ms']:>8.2f} / {os_['p99_ms']:<7.2f} | {gs['server_cpu_us_per_step']:>16.0f} / {os_['server_cpu_us_per_step']:<16.0f} | "
            f"{gs['client_cpu_us_per_step']:>7.0f} / {os_['client_cpu_us_per_step']:<8.0f}"
        )
    if a.memory_sessions:
        print(
            f"memory per 1,000 sessions: gem-ts {g['memory_per_1000_sessions_bytes'] / 2**20:.1f} MiB, "
            f"OpenEnv {o['memory_per_1000_sessions_bytes'] / 2**20:.1f} MiB ({results['ratios']['memory']:.2f}×)"
        )
    print(f"results: {out}")


if __name__ == "__main__":
    main()
