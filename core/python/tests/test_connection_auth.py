"""Auth bound to the connection, seen from Python (issue 27): a raw DEALER that presents a gem_ts
client's routing id after that client's connection ended gets UNAUTHORIZED and reaches nothing; the
client itself, when its connection is replaced under it, says hello again (token and resume secret)
and finds its handles; a ``Handle`` survives ``copy`` and ``pickle`` with its boot."""

from __future__ import annotations

import copy
import pickle
import socket
import threading
import time
from typing import Any, Dict, Iterator, List

import msgpack
import pytest
import zmq

from gem_ts import Client, LocalServer
from gem_ts.session import Handle

TOKEN = "correct horse battery staple"
EASY = "game:GuessTheNumber-v0-easy"


@pytest.fixture(scope="module")
def token_server() -> Iterator[LocalServer]:
    srv = LocalServer(auth_token=TOKEN, endpoint="ipc")  # routing ids are ZeroMQ's (the stream transport has none to steal)
    try:
        yield srv
    finally:
        srv.stop()


def raw_request(sock: Any, rid: int, fields: Dict[str, Any]) -> Dict[str, Any]:
    """Sends until answered: while the victim's connection is being torn down libzmq refuses its
    routing id, and what the thief sent on that refused connection is lost (it reconnects)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        sock.send_multipart([msgpack.packb({"v": 1, "id": rid, **fields})])
        while sock.poll(500):
            header = msgpack.unpackb(sock.recv_multipart()[0], raw=False)
            if header.get("id") == rid:
                return header
    raise AssertionError(f"no answer to {fields}")


def server_stats(endpoint: str) -> Dict[str, Any]:
    with Client(endpoint, token=TOKEN, heartbeat=False) as c:
        return c.stats()["server"]


def until_connections(endpoint: str, n: int) -> None:
    """Waits until the server has seen the other connections end (only the asking one and ``n - 1``
    others left): libzmq ignores a connection that presents a routing id still in use."""
    with Client(endpoint, token=TOKEN, heartbeat=False) as c:
        deadline = time.monotonic() + 10
        while c.stats()["server"]["connections"] > n and time.monotonic() < deadline:
            time.sleep(0.02)


def test_a_stolen_routing_id_reaches_nothing(token_server: LocalServer) -> None:
    victim = Client(token_server.endpoint, token=TOKEN, heartbeat=False)
    routing_id = victim._transport.link.sock.getsockopt(zmq.ROUTING_ID)
    handle = victim.make_handle(EASY, num_envs=2)["handle"]
    victim.reset(handle, seed=1)
    victim._transport.close()  # the connection ends; the session waits (idle timeout) to be resumed
    until_connections(token_server.endpoint, 1)

    thief: Any = zmq.Context.instance().socket(zmq.DEALER)
    thief.setsockopt(zmq.ROUTING_ID, routing_id)
    thief.setsockopt(zmq.LINGER, 0)
    thief.connect(token_server.endpoint)
    try:
        asks: List[Dict[str, Any]] = [
            {"op": "ping"},
            {"op": "stats"},
            {"op": "reset", "handle": int(handle)},
            {"op": "close", "handle": int(handle)},
            {"op": "hello", "resume": victim.session.resume},
        ]
        for rid, fields in enumerate(asks, start=1):
            reply = raw_request(thief, rid, fields)
            assert reply["error"]["code"] == "UNAUTHORIZED", (fields, reply)
    finally:
        thief.close()
    assert server_stats(token_server.endpoint)["envs"] >= 2  # the victim's envs are untouched


class DroppingProxy:
    """A TCP relay between a client and the server whose connections can be cut: the client's
    DEALER then reconnects by itself, under the same routing id, as after a network blip."""

    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.conns: List[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self.listener.accept()
            except OSError:
                return
            up = socket.create_connection(("127.0.0.1", self.upstream_port))
            with self.lock:
                self.conns += [down, up]
            for a, b in ((down, up), (up, down)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def drop(self) -> None:
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self.listener.close()
        self.drop()


@pytest.fixture(scope="module", params=["tcp", "stream+tcp"])
def tcp_token_server(request: pytest.FixtureRequest) -> Iterator[LocalServer]:
    """A token server over ZeroMQ's tcp and over the stream transport's: the proxy below drops either."""
    srv = LocalServer(endpoint=f"{request.param}://127.0.0.1:0", auth_token=TOKEN)
    try:
        yield srv
    finally:
        srv.stop()


def _via(server: LocalServer, proxy: "DroppingProxy") -> str:
    """The server's endpoint, through the proxy (same transport)."""
    return f"{server.endpoint.split('://', 1)[0]}://127.0.0.1:{proxy.port}"


@pytest.mark.parametrize("heartbeat", [False, True])
def test_a_client_whose_connection_drops_says_hello_again_and_keeps_its_handles(tcp_token_server: LocalServer, heartbeat: bool) -> None:
    proxy = DroppingProxy(int(tcp_token_server.endpoint.rsplit(":", 1)[1]))
    try:
        with Client(_via(tcp_token_server, proxy), token=TOKEN, heartbeat=heartbeat) as client:
            handle = client.make_handle(EASY, num_envs=1)["handle"]
            client.reset(handle, seed=3)
            resume = client.session.resume
            assert isinstance(resume, str) and resume
            proxy.drop()  # the server sees the connection end; the DEALER reconnects, same routing id
            time.sleep(1.0)
            if heartbeat:
                # The heartbeat thread said hello again by itself (the session is bound once more).
                assert not client.session.needs_hello
            client.reset(handle, seed=3)
            assert client.session.resume == resume
            assert client.stats()["client"]["handles"] == 1
    finally:
        proxy.close()


def test_a_handle_copies_and_pickles_with_its_boot() -> None:
    h = Handle(7, "boot-1", 3)
    for other in (copy.copy(h), copy.deepcopy(h), pickle.loads(pickle.dumps(h))):
        assert isinstance(other, Handle)
        assert (int(other), other.boot_id, other.num_envs) == (7, "boot-1", 3)


def test_an_asyncio_client_whose_connection_drops_says_hello_again_and_keeps_its_handles(tcp_token_server: LocalServer) -> None:
    import asyncio

    from gem_ts import aio

    proxy = DroppingProxy(int(tcp_token_server.endpoint.rsplit(":", 1)[1]))

    async def main() -> None:
        async with await aio.connect(_via(tcp_token_server, proxy), token=TOKEN) as c:
            handle = (await c.make_handle(EASY, num_envs=1))["handle"]
            await c.reset(handle, seed=3)
            resume = c.session.resume
            proxy.drop()
            await asyncio.sleep(1.0)  # the socket monitor sees the drop; the DEALER reconnects
            # The watcher says hello again by itself once the DEALER is back (same routing id).
            deadline = time.monotonic() + 5
            while (c.session.needs_hello or not c.session.connected) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert not c.session.needs_hello
            await c.reset(handle, seed=3)
            assert c.session.resume == resume
            assert (await c.stats())["client"]["handles"] == 1

    try:
        asyncio.run(main())
    finally:
        proxy.close()


def test_the_session_sends_its_resume_secret_in_hello_and_wants_one_only_after_a_disconnect() -> None:
    from gem_ts.errors import UnauthorizedError
    from gem_ts.session import Call, Session

    s = Session("ipc:///nowhere", token="t")
    assert "resume" not in s.hello_call().header  # nothing to resume yet
    s._on_hello({"boot_id": "b", "server": {}, "limits": {}, "resume": "secret"}, None)
    assert s.hello_call().header["resume"] == "secret" and s.hello_call().header["token"] == "t"
    s.on_connected(0.0)
    assert not s.wants_hello
    s.on_disconnected(1.0)
    s.on_connected(2.0)
    assert s.wants_hello  # the heartbeat says hello before the idle timeout frees the session
    s._on_hello({"boot_id": "b", "server": {}, "limits": {}, "resume": "secret"}, None)
    assert not s.wants_hello
    # UNAUTHORIZED to a request of a client that was let in: hello again and go once more.
    ping: Call[Any] = Call("ping")
    assert s.hello_again(ping, UnauthorizedError("UNAUTHORIZED", "x")) and s.needs_hello
    assert not s.hello_again(s.hello_call(), UnauthorizedError("UNAUTHORIZED", "x"))
    # An older server sends no secret: nothing is resumed, nothing retried.
    s._on_hello({"boot_id": "b", "server": {}, "limits": {}}, None)
    assert s.resume is None and "resume" not in s.hello_call().header
    assert not s.hello_again(ping, UnauthorizedError("UNAUTHORIZED", "x"))
