"""The client's end of the stream transport (``stream+ipc:///path``, ``stream+tcp://host:port``): gem-ts's
multipart messages over a plain socket, framed as docs/protocol.md ("The stream transport") says: a
message is its frame count, each frame's length (u32 little-endian) and the frames' bytes.

It does for the transports what a ZeroMQ DEALER with ``IMMEDIATE`` does (``zmq_link.ZmqLink``): a send
while not connected is refused, not queued; a lost connection is reported to the session and
reconnected, at most every ``RETRY_S``, when the transport next sends or looks. A round trip is one
socket write and read on each side, with no I/O thread in between: about a quarter of ZeroMQ's.
"""

from __future__ import annotations

import asyncio
import re
import select
import socket
import struct
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

from .errors import InvalidRequestError

Frames = List[Any]

#: Reconnect attempts while the server is away, at most this often (ZeroMQ's reconnect interval).
RETRY_S = 0.1
#: A connect to a tcp server waits this long at most (a unix socket answers at once or not at all).
CONNECT_TIMEOUT_S = 1.0
_READ_CHUNK = 1 << 18
_MAX_FRAMES = 16
_U32 = struct.Struct("<I")
_STREAM = re.compile(r"^stream\+(ipc|tcp)://(\S+)$")
_DONTWAIT = socket.MSG_DONTWAIT
_PEEK = socket.MSG_PEEK | socket.MSG_DONTWAIT


def is_stream_endpoint(endpoint: str) -> bool:
    return endpoint.startswith("stream+")


def _address(endpoint: str) -> Tuple[int, Union[str, Tuple[str, int]]]:
    m = _STREAM.match(endpoint)
    if m and m.group(1) == "ipc":
        return socket.AF_UNIX, m.group(2)
    hp = re.match(r"^\[?([^\]]+?)\]?:(\d+)$", m.group(2)) if m else None
    if hp is None:
        raise InvalidRequestError(
            "INVALID_REQUEST",
            f"cannot connect to {endpoint!r}: a stream endpoint looks like 'stream+ipc:///tmp/gem-ts.sock' or 'stream+tcp://127.0.0.1:5555'",
            {"endpoint": endpoint},
        )
    return socket.AF_INET, (hp.group(1), int(hp.group(2)))


def frame_header(frames: Sequence[Any]) -> bytes:
    return struct.pack(f"<{len(frames) + 1}I", len(frames), *(len(f) for f in frames))


class StreamLink:
    """One connection at a time to a gem-ts stream server; see the module's note."""

    def __init__(self, session: Any):
        self.session = session
        self._family, self._addr = _address(session.endpoint)
        self.sock: Optional[socket.socket] = None
        self._buf = bytearray(_READ_CHUNK)
        self._start = 0
        self._end = 0
        self._last_try = float("-inf")
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._on_readable: Optional[Callable[[], None]] = None
        self._closed = False
        self._connect()

    # ── connection ────────────────────────────────────────────────────────────────────────────────

    def _connect(self) -> bool:
        if self._closed:
            return False
        self._last_try = time.monotonic()
        if self._family == socket.AF_UNIX:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self._addr)
            except OSError:
                sock.close()
                return False
        else:
            try:
                sock = socket.create_connection(self._addr, timeout=CONNECT_TIMEOUT_S)  # type: ignore[arg-type]
            except OSError:
                return False
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(None)
        self.sock = sock
        self._start = self._end = 0
        if self._loop is not None and self._on_readable is not None:
            self._loop.add_reader(sock.fileno(), self._on_readable)
        self.session.on_connected(time.monotonic())
        return True

    def _lost(self) -> None:
        sock, self.sock = self.sock, None
        if sock is None:
            return
        if self._loop is not None:
            try:
                self._loop.remove_reader(sock.fileno())
            except (ValueError, OSError):
                pass
        sock.close()
        self._start = self._end = 0
        self.session.on_disconnected(time.monotonic())

    def maintain(self, wait_s: float = 0.0) -> None:
        """Reconnects when the connection is gone and a retry is due; waits up to ``wait_s`` for that."""
        if self.sock is not None or self._closed:
            return
        due = self._last_try + RETRY_S - time.monotonic()
        if due > 0:
            if wait_s <= 0:
                return
            time.sleep(min(due, wait_s))
        self._connect()

    # ── sending ───────────────────────────────────────────────────────────────────────────────────

    def try_send(self, frames: Frames) -> bool:
        """Sends a whole message, or returns False (nothing sent) when there is no connection. A
        connection made here (a reconnect) still returns False, so the caller looks at its session
        (a hello may be due) before anything goes on it."""
        sock = self.sock
        if sock is None:
            if time.monotonic() - self._last_try >= RETRY_S:
                self._connect()
            return False
        if self._ended(sock):
            self._lost()
            return False
        parts: List[Any] = [frame_header(frames), *frames]
        try:
            left = sum(len(p) for p in parts)
            while True:
                sent = sock.sendmsg(parts)
                left -= sent
                if left <= 0:
                    return True
                parts = _after(parts, sent)
        except OSError:
            self._lost()
            return False

    @staticmethod
    def _ended(sock: socket.socket) -> bool:
        """Whether the server closed the connection (a peek, nothing read): a request written after
        that would be lost on a TCP connection whose close has not been read yet."""
        try:
            return sock.recv(1, _PEEK) == b""
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True

    # ── receiving ─────────────────────────────────────────────────────────────────────────────────

    def recv_nowait(self) -> Optional[Frames]:
        """The next whole message, or None when none has fully arrived."""
        msg = self._parse()
        if msg is not None or self.sock is None:
            return msg
        if self._fill(_DONTWAIT):
            return self._parse()
        return None

    def recv(self, timeout_s: float) -> Optional[Frames]:
        """The next whole message, waiting up to ``timeout_s``; None if none came."""
        deadline = time.monotonic() + timeout_s
        while True:
            msg = self._parse()
            if msg is not None:
                return msg
            if self.sock is None:
                self.maintain(max(0.0, deadline - time.monotonic()))
                if self.sock is None:
                    return None
                continue
            wait = deadline - time.monotonic()
            if wait <= 0:
                return None
            ready, _, _ = select.select([self.sock], [], [], wait)
            if ready:
                self._fill(_DONTWAIT)

    def _fill(self, flags: int) -> bool:
        """Reads what the socket has; False when nothing was there (or the connection ended)."""
        sock = self.sock
        assert sock is not None
        if len(self._buf) - self._end < _READ_CHUNK // 4:
            self._make_room(_READ_CHUNK)
        try:
            n = sock.recv_into(memoryview(self._buf)[self._end :], 0, flags)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            self._lost()
            return False
        if n == 0:
            self._lost()
            return False
        self._end += n
        return True

    def _make_room(self, need: int) -> None:
        live = self._end - self._start
        if self._start > 0:
            self._buf[:live] = self._buf[self._start : self._end]
            self._start, self._end = 0, live
        if len(self._buf) - live < need:
            self._buf.extend(bytes(max(need, len(self._buf))))

    def _parse(self) -> Optional[Frames]:
        buf, at = self._buf, self._start
        avail = self._end - at
        if avail < 4:
            return None
        n = _U32.unpack_from(buf, at)[0]
        if n == 0 or n > _MAX_FRAMES:
            self._lost()  # not a gem-ts stream server (or a broken one): start over
            return None
        if avail < 4 + 4 * n:
            return None
        lengths = struct.unpack_from(f"<{n}I", buf, at + 4)
        total = 4 + 4 * n + sum(lengths)
        if avail < total:
            if at + total > len(buf):
                self._make_room(total - avail)
            return None
        view = memoryview(buf)
        pos = at + 4 + 4 * n
        frames: Frames = []
        for length in lengths:
            frames.append(bytes(view[pos : pos + length]))
            pos += length
        self._start = at + total
        if self._start == self._end:
            self._start = self._end = 0
        return frames

    # ── asyncio ───────────────────────────────────────────────────────────────────────────────────

    def attach(self, loop: asyncio.AbstractEventLoop, on_readable: Callable[[], None]) -> None:
        """Calls ``on_readable`` from ``loop`` whenever the socket has bytes (or ended), over reconnects."""
        self._loop, self._on_readable = loop, on_readable
        if self.sock is not None:
            loop.add_reader(self.sock.fileno(), on_readable)

    def close(self) -> None:
        self._closed = True
        sock, self.sock = self.sock, None
        if sock is not None:
            if self._loop is not None:
                try:
                    self._loop.remove_reader(sock.fileno())
                except (ValueError, OSError, RuntimeError):
                    pass
            sock.close()


def _after(parts: List[Any], sent: int) -> List[Any]:
    """What is left of ``parts`` after the first ``sent`` bytes went."""
    out: List[Any] = []
    for p in parts:
        if sent >= len(p):
            sent -= len(p)
            continue
        out.append(memoryview(p)[sent:] if sent else p)
        sent = 0
    return out
