"""A bare protocol socket for tests that speak protocol v1 by hand: a ZeroMQ DEALER for ``ipc://`` and
``tcp://`` endpoints, a plain socket framed as the stream transport frames for ``stream+`` ones, with
the few calls those tests use (``send_multipart``, ``recv_multipart``, ``poll``, ``close``)."""

from __future__ import annotations

import select
import socket
import struct
from typing import Any, List, Optional

import zmq

from gem_ts.stream_link import _address, frame_header, is_stream_endpoint


class _StreamSocket:
    def __init__(self, endpoint: str, timeout_s: float):
        family, addr = _address(endpoint)
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        self.sock.connect(addr)
        self.buf = b""

    def send_multipart(self, frames: List[bytes]) -> None:
        self.sock.sendall(frame_header(frames) + b"".join(frames))

    def _read(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv_multipart(self) -> List[bytes]:
        (n,) = struct.unpack("<I", self._read(4))
        lengths = struct.unpack(f"<{n}I", self._read(4 * n))
        return [self._read(k) for k in lengths]

    def poll(self, timeout_ms: int) -> bool:
        return bool(self.buf) or bool(select.select([self.sock], [], [], timeout_ms / 1000)[0])

    def close(self, linger: Optional[int] = None) -> None:
        self.sock.close()


def raw_socket(endpoint: str, timeout_s: float = 30.0, routing_id: Optional[bytes] = None) -> Any:
    """A connected raw socket to ``endpoint``; ``routing_id`` only means something to ZeroMQ."""
    if is_stream_endpoint(endpoint):
        return _StreamSocket(endpoint, timeout_s)
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVTIMEO, int(timeout_s * 1000))
    if routing_id is not None:
        sock.setsockopt(zmq.ROUTING_ID, routing_id)
    sock.connect(endpoint)
    return sock
