"""The client's end of the ZeroMQ transport (``ipc://``, ``tcp://``): a DEALER with ``IMMEDIATE`` set, so
a request is never queued for a server that is not connected (one written while the server is down
would otherwise be delivered to whichever process binds the endpoint next), and a monitor socket
whose events tell the session when the connection comes and goes. ZeroMQ reconnects by itself.

The same face as ``stream_link.StreamLink``: ``try_send``, ``recv``, ``recv_nowait``, ``maintain``,
``attach``, ``close``; the transports (transport.py) hold one or the other.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any, Callable, List, Optional

import zmq
from zmq.utils.monitor import parse_monitor_message

from .errors import InvalidRequestError

Frames = List[Any]

_EVENTS = zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED
# The flags as plain ints: pyzmq's are enum.Flag members, whose `|` and `&` run Python code (µs per call).
_NOBLOCK = int(zmq.NOBLOCK)
_SNDMORE = int(zmq.SNDMORE)
_POLLIN = int(zmq.POLLIN)
_EVENTS_OPT = int(zmq.EVENTS)

#: Frames at least this long are received in place: the body is the zmq frame's own memory, not a copy.
IN_PLACE_BYTES = 65536


def recv_message(sock: Any, flags: int = 0) -> Frames:
    """One message: the header as bytes, a large body (an Arrow reply of many rows) as a memoryview of
    the received frame, which it keeps alive; ``zmq.Again`` when there is none (``NOBLOCK``)."""
    frame = sock.recv(flags, copy=False)  # a Frame knows whether more follow: no getsockopt per part
    frames: Frames = [frame.bytes]
    while frame.more:
        frame = sock.recv(flags, copy=False)
        frames.append(frame.buffer if len(frame) >= IN_PLACE_BYTES else frame.bytes)
    return frames


def send_message(sock: Any, frames: Frames, flags: int = 0) -> None:
    """``send_multipart`` without its per-call checks (every frame here is bytes): a big last frame
    goes without a copy. ``zmq.Again`` when the message cannot be queued now (``NOBLOCK``); the
    parts after the first are then never refused, as a message is queued whole."""
    last = len(frames) - 1
    for k in range(last):
        sock.send(frames[k], flags | _SNDMORE)
    body = frames[last]
    sock.send(body, flags, copy=len(body) < 65536)


class ZmqLink:
    def __init__(self, session: Any, prefix: bytes, recv_timeout_s: float):
        self.session = session
        self._ctx: zmq.Context[Any] = zmq.Context()
        sock: Any = self._ctx.socket(zmq.DEALER)
        self.sock = sock
        # Our own routing id survives reconnects, so the server keeps seeing one client.
        sock.setsockopt(zmq.ROUTING_ID, prefix + uuid.uuid4().bytes)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.IMMEDIATE, 1)
        sock.setsockopt(zmq.RCVTIMEO, int(recv_timeout_s * 1000))
        self._recv_timeout_s = recv_timeout_s
        self._monitor: Any = sock.get_monitor_socket(_EVENTS)
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._on_readable: Optional[Callable[[], None]] = None
        self._released = False
        try:
            sock.connect(session.endpoint)
        except zmq.ZMQError as e:
            self.close()
            raise InvalidRequestError(
                "INVALID_REQUEST",
                f"cannot connect to {session.endpoint!r} ({e}): an endpoint looks like 'tcp://127.0.0.1:5555' or 'ipc:///tmp/gem-ts.sock'",
                {"endpoint": session.endpoint},
            ) from None

    def try_send(self, frames: Frames) -> bool:
        """Sends at once, or returns False when the server is not connected (IMMEDIATE)."""
        try:
            send_message(self.sock, frames, _NOBLOCK)
        except zmq.Again:
            return False
        # ZeroMQ's descriptor signals an edge: the send may have taken the one of a message that came
        # in meanwhile, so an attached reader looks again.
        if self._loop is not None and self.sock.get(_EVENTS_OPT) & _POLLIN:
            self._loop.call_soon(self._on_readable)  # type: ignore[arg-type]
        return True

    def recv(self, timeout_s: float) -> Optional[Frames]:
        """The next message, waiting up to ``timeout_s``; None if none came."""
        if timeout_s != self._recv_timeout_s:  # the socket's receive timeout, set only when it changes
            self.sock.setsockopt(zmq.RCVTIMEO, max(0, int(timeout_s * 1000)))
            self._recv_timeout_s = timeout_s
        try:
            return recv_message(self.sock)
        except zmq.Again:
            return None

    def recv_nowait(self) -> Optional[Frames]:
        if not self.sock.get(_EVENTS_OPT) & _POLLIN:
            return None
        try:
            return recv_message(self.sock, _NOBLOCK)
        except zmq.Again:
            return None

    def maintain(self, wait_s: float = 0.0) -> None:
        """Hands the connection events to the session, waiting up to ``wait_s`` for one."""
        if self._released:
            return
        if wait_s and not self._monitor.poll(int(wait_s * 1000)):
            return
        if not wait_s and not self._monitor.get(_EVENTS_OPT) & _POLLIN:
            return
        while True:
            try:
                msg = self._monitor.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            event = parse_monitor_message(msg)["event"]
            if event == zmq.EVENT_CONNECTED:
                self.session.on_connected(time.monotonic())
            elif event == zmq.EVENT_DISCONNECTED:
                self.session.on_disconnected(time.monotonic())

    def attach(self, loop: asyncio.AbstractEventLoop, on_readable: Callable[[], None]) -> None:
        self._loop, self._on_readable = loop, on_readable
        loop.add_reader(int(self.sock.FD), on_readable)
        loop.add_reader(int(self._monitor.FD), self.maintain)

    def close(self) -> None:
        if self._released:
            return
        self._released = True
        if self._loop is not None:
            for fd in (int(self.sock.FD), int(self._monitor.FD)):
                try:
                    self._loop.remove_reader(fd)
                except (ValueError, RuntimeError):
                    pass
        try:
            self.sock.disable_monitor()
        except zmq.ZMQError:
            pass
        self._monitor.close(0)
        self.sock.close(0)
        self._ctx.term()
