"""The two transports of the client: a blocking ZeroMQ socket and an asyncio one.

They only move frames and keep time; the protocol (framing, hello and boot identity, liveness,
errors, env state) is ``session.Session``'s. Both sockets are DEALERs with ``IMMEDIATE`` set, so a
request is never queued for a server that is not connected: one written while the server is down
would otherwise be delivered to whichever process binds the endpoint next.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

import zmq
from zmq.utils.monitor import parse_monitor_message

from .errors import GemError, InvalidRequestError
from .session import Call, Frames, Header, Session

T = TypeVar("T")
Reply = Tuple[Header, Optional[bytes]]

#: A waiting call looks at the connection and the clock this often while the server is silent.
SLICE_S = 0.05
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


def _dealer(ctx: Any, prefix: bytes) -> Any:
    sock = ctx.socket(zmq.DEALER)
    # Our own routing id survives reconnects, so the server keeps seeing one client.
    sock.setsockopt(zmq.ROUTING_ID, prefix + uuid.uuid4().bytes)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.IMMEDIATE, 1)
    return sock


def _apply_event(session: Session, msg: List[bytes]) -> None:
    event = parse_monitor_message(msg)["event"]
    now = time.monotonic()
    if event == zmq.EVENT_CONNECTED:
        session.on_connected(now)
    elif event == zmq.EVENT_DISCONNECTED:
        session.on_disconnected(now)


def _connect(ctx: Any, sock: Any, monitor: Any, endpoint: str) -> None:
    """Connects, or releases the sockets and says what is wrong with the endpoint (ZeroMQ's own
    error is a bare ``Invalid argument``)."""
    try:
        sock.connect(endpoint)
    except zmq.ZMQError as e:
        _release(ctx, sock, monitor)
        raise InvalidRequestError(
            "INVALID_REQUEST",
            f"cannot connect to {endpoint!r} ({e}): an endpoint looks like 'tcp://127.0.0.1:5555' or 'ipc:///tmp/gem-ts.sock'",
            {"endpoint": endpoint},
        ) from None


def _release(ctx: Any, sock: Any, monitor: Any) -> None:
    try:
        sock.disable_monitor()
    except zmq.ZMQError:
        pass
    monitor.close(0)
    sock.close(0)
    ctx.term()


class BlockingTransport:
    """For synchronous callers. A daemon thread pings while the caller is idle and answers the server's
    ``env_call`` messages then, so a trainer that generates for minutes keeps its envs."""

    def __init__(self, session: Session, heartbeat: bool = True):
        self.session = session
        self._ctx: zmq.Context[Any] = zmq.Context()
        self.sock = _dealer(self._ctx, b"py-")
        self.sock.setsockopt(zmq.RCVTIMEO, int(SLICE_S * 1000))
        self._monitor = self.sock.get_monitor_socket(_EVENTS)
        _connect(self._ctx, self.sock, self._monitor, session.endpoint)
        self._lock = threading.RLock()
        self._replies: Dict[int, Reply] = {}
        self._stop = threading.Event()
        self._heartbeat = heartbeat
        self._released = False

    def start(self) -> None:
        """Says hello (raising if nobody answers) and starts the heartbeat thread."""
        self.run(self.session.hello_call())
        if self._heartbeat:
            threading.Thread(target=self._heartbeat_loop, name="gem_ts-heartbeat", daemon=True).start()

    def run(self, call: Call[T]) -> T:
        s = self.session
        if s.closed:
            s.admit(call)  # raises the clear error; the sockets are already gone
        with self._lock:
            if self._monitor.get(_EVENTS_OPT) & _POLLIN:
                self._drain_monitor()
            if s.needs_hello and call.header["op"] != "hello":
                self._hello()
            s.admit(call)
            try:
                return self._exchange(call)
            except GemError as e:
                if not s.hello_again(call, e):
                    raise
            self._hello()
            s.admit(call)
            return self._exchange(call)

    def _hello(self) -> None:
        s = self.session
        self._exchange(s.hello_call())
        while s.replays:
            self._exchange(s.replays.pop(0))

    def _exchange(self, call: Call[T]) -> T:
        s = self.session
        frames = s.frame(call, time.monotonic())
        self._send(call, frames)
        while True:
            got = self._replies.pop(call.rid, None)
            if got is not None:
                return s.finish(call, *got)
            try:
                incoming = recv_message(self.sock)
            except zmq.Again:
                incoming = None
            if incoming is not None:
                r = s.receive(incoming, time.monotonic())
                if r is None:
                    continue
                if isinstance(r, dict):
                    self._answer(r)
                    continue
                done, header, body = r
                if done is call:
                    return s.finish(call, header, body)
                self._replies[done.rid] = (header, body)
                continue
            self._silence(call)

    def _send(self, call: Call[Any], frames: Frames) -> None:
        s = self.session
        while True:
            try:
                send_message(self.sock, frames, _NOBLOCK)
                return
            except zmq.Again:
                pass  # not connected (IMMEDIATE): wait for the server within the grace period
            self._drain_monitor(SLICE_S)
            dead = s.local_problem() if s.local_problem else None
            if dead or time.monotonic() > s.send_deadline():
                raise s.unsent(call)

    def _silence(self, call: Call[Any]) -> None:
        """A slice passed without a message: look at the connection, the server and the clock."""
        s = self.session
        self._drain_monitor()
        now = time.monotonic()
        why = s.check(now)
        if why is not None:
            _, err = s.fail(why)
            raise err
        for late in s.overdue(now):
            timed_out = s.time_out(late)
            if late is call:
                raise timed_out
        if s.wants_ping(now):
            self._ping(now)

    def _ping(self, now: float) -> None:
        try:
            send_message(self.sock, self.session.ping_frames(now), _NOBLOCK)
        except zmq.Again:
            pass

    def _answer(self, env_call: Header) -> None:
        try:
            send_message(self.sock, [self.session.env_return(env_call)], _NOBLOCK)
        except zmq.Again:
            return  # the server that asked is gone; its liveness check reports that
        self.session.last_tx = time.monotonic()

    def _drain_monitor(self, wait_s: float = 0.0) -> None:
        if wait_s and not self._monitor.poll(int(wait_s * 1000)):
            return
        while True:
            try:
                msg = self._monitor.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            _apply_event(self.session, msg)

    def _heartbeat_loop(self) -> None:
        s = self.session
        pid = os.getpid()
        while not self._stop.wait(s.heartbeat_s / 2):
            if s.closed or os.getpid() != pid:
                return
            if not self._lock.acquire(blocking=False):
                continue  # the caller is talking to the server right now
            try:
                self._drain_monitor()
                now = time.monotonic()
                if s.wants_hello:
                    try:
                        self._hello()
                    except GemError:
                        pass  # the caller's next request says hello again and reports what is wrong
                elif s.wants_ping(now) and s.connected:
                    self._ping(now)
                # Serve env_calls (and drop ping replies) while the caller is busy elsewhere.
                while self.sock.poll(0):
                    r = s.receive(recv_message(self.sock), time.monotonic())
                    if isinstance(r, dict):
                        self._answer(r)
                    elif r is not None:
                        self._replies[r[0].rid] = (r[1], r[2])
            except zmq.ZMQError:
                return
            finally:
                self._lock.release()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            if self._released:
                return
            self._released = True
            _release(self._ctx, self.sock, self._monitor)


class AsyncTransport:
    """For asyncio callers: many requests in flight, replies read by a callback on the socket's file
    descriptor (no task, no future per message: a reply reaches the code waiting on it in the same
    event-loop turn it is read), one watchdog task (pings, liveness, timeouts). After the server went
    away, the next request says hello again, so a client recovers when the server is back.

    The sockets are plain ZeroMQ sockets driven from the event loop: ZeroMQ's descriptor signals an
    edge (something changed), so the reader drains every message ``EVENTS`` says is there, and every
    send looks again, since a send may take the edge of a message that arrived meanwhile."""

    def __init__(self, session: Session):
        self.session = session
        self._ctx: zmq.Context[Any] = zmq.Context()
        self.sock = _dealer(self._ctx, b"pa-")
        self._monitor = self.sock.get_monitor_socket(_EVENTS)
        _connect(self._ctx, self.sock, self._monitor, session.endpoint)
        self._fds = (int(self.sock.FD), int(self._monitor.FD))
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._futures: Dict[int, "asyncio.Future[Reply]"] = {}
        #: Calls sent by ``send_now``: request id → what to do with the reply or the failure.
        self._callbacks: Dict[int, Callable[[Optional[Reply], Optional[BaseException]], None]] = {}
        self._hello: Optional["asyncio.Future[None]"] = None
        self._background_hello: Optional["asyncio.Future[None]"] = None
        self._tasks: List["asyncio.Task[None]"] = []
        self._released = False

    async def start(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        loop.add_reader(self._fds[0], self._readable)
        loop.add_reader(self._fds[1], self._monitor_events)
        self._tasks = [asyncio.ensure_future(self._watch())]
        await self.run(self.session.hello_call())

    async def run(self, call: Call[T]) -> T:
        s = self.session
        if s.closed:
            s.admit(call)  # raises the clear error; the sockets are already gone
        if s.needs_hello and call.header["op"] != "hello":
            await self._say_hello()
        try:
            return await self._run_once(call)
        except GemError as e:
            if not s.hello_again(call, e):
                raise
        await self._say_hello()
        return await self._run_once(call)

    async def _run_once(self, call: Call[T]) -> T:
        s = self.session
        s.admit(call)
        fut: "asyncio.Future[Reply]" = asyncio.get_running_loop().create_future()
        frames = s.frame(call, time.monotonic())
        self._futures[call.rid] = fut
        try:
            await self._send(call, frames)
            header, body = await fut
        finally:
            self._futures.pop(call.rid, None)
            if fut.done() and not fut.cancelled():
                fut.exception()  # the watchdog may fail it while the send itself fails: one error is enough
        return s.finish(call, header, body)

    def send_now(self, call: Call[Any], on_reply: Callable[[Optional[Reply], Optional[BaseException]], None]) -> bool:
        """Sends ``call`` at once, from plain (non-async) code and without a task, when nothing stands in
        the way: no hello to say first and a connection that takes the message now. ``on_reply`` then
        gets the reply (header, body), or the error that ended the call (the watchdog's, the client's
        close), from the reader; it must not raise. False: nothing was sent, ``run`` the call instead.
        Raises what ``Session.admit`` raises (a closed client, a call it refuses)."""
        s = self.session
        if s.closed or s.needs_hello:
            return False
        s.admit(call)
        frames = s.frame(call, time.monotonic())
        if not self._try_send(frames):
            s.pending.pop(call.rid, None)  # not connected: the caller runs it, which waits for the server
            return False
        self._callbacks[call.rid] = on_reply
        return True

    async def _say_hello(self) -> None:
        # One hello at a time: every coroutine that finds the session unsaid waits for the same one.
        if self._hello is None:
            self._hello = asyncio.ensure_future(self._hello_and_replay())
        hello = self._hello
        try:
            await asyncio.shield(hello)
        finally:
            if self._hello is hello and hello.done():
                self._hello = None

    async def _hello_quietly(self) -> None:
        try:
            await self._say_hello()
        except GemError:
            pass  # the next request says hello again and reports what is wrong

    async def _hello_and_replay(self) -> None:
        s = self.session
        await self.run(s.hello_call())
        while s.replays:
            await self.run(s.replays.pop(0))

    def _try_send(self, frames: Frames) -> bool:
        """One send that never waits: False when the server is not connected (IMMEDIATE)."""
        try:
            send_message(self.sock, frames, _NOBLOCK)
        except zmq.Again:
            return False
        # The send may have taken the descriptor's edge for a message that came in meanwhile.
        if self._loop is not None and self.sock.get(_EVENTS_OPT) & _POLLIN:
            self._loop.call_soon(self._readable)
        return True

    async def _send(self, call: Call[Any], frames: Frames) -> None:
        s = self.session
        while not self._try_send(frames):
            # Not connected (IMMEDIATE): wait for the server within the grace period.
            wait = min(SLICE_S, s.send_deadline() - time.monotonic())
            dead = s.local_problem() if s.local_problem else None
            if dead or wait <= 0:
                raise s.unsent(call)
            await asyncio.sleep(min(wait, 0.005))

    def _readable(self) -> None:
        """Every message that is there, each to the call waiting on it (or answered: an env_call)."""
        if self._released:
            return
        s, sock = self.session, self.sock
        try:
            while sock.get(_EVENTS_OPT) & _POLLIN:
                r = s.receive(recv_message(sock, _NOBLOCK), time.monotonic())
                if r is None:
                    continue
                if isinstance(r, dict):
                    if self._try_send([s.env_return(r)]):
                        s.last_tx = time.monotonic()
                    continue  # else the server that asked is gone
                rid = r[0].rid
                cb = self._callbacks.pop(rid, None)
                if cb is not None:
                    cb((r[1], r[2]), None)
                    continue
                fut = self._futures.get(rid)
                if fut is not None and not fut.done():
                    fut.set_result((r[1], r[2]))
        except zmq.Again:
            return
        except zmq.ZMQError:
            return  # closed under us

    def _monitor_events(self) -> None:
        if self._released:
            return
        try:
            while self._monitor.get(zmq.EVENTS) & zmq.POLLIN:
                _apply_event(self.session, self._monitor.recv_multipart(zmq.NOBLOCK))
        except zmq.ZMQError:
            return

    async def _watch(self) -> None:
        s = self.session
        try:
            while True:
                await asyncio.sleep(SLICE_S)
                # A descriptor's edge may have gone to another call on the socket in between.
                self._monitor_events()
                self._readable()
                now = time.monotonic()
                why = s.check(now)
                if why is not None:
                    calls, err = s.fail(why)
                    for c in calls:
                        self._fail(c, err)
                for late in s.overdue(now):
                    self._fail(late, s.time_out(late))
                if s.wants_hello and (self._background_hello is None or self._background_hello.done()):
                    self._background_hello = asyncio.ensure_future(self._hello_quietly())
                elif s.wants_ping(now) and s.connected:
                    self._try_send(s.ping_frames(now))
        except (asyncio.CancelledError, zmq.ZMQError):
            return

    def _fail(self, call: Call[Any], err: BaseException) -> None:
        cb = self._callbacks.pop(call.rid, None)
        if cb is not None:
            cb(None, err)
            return
        fut = self._futures.get(call.rid)
        if fut is not None and not fut.done():
            fut.set_exception(err)

    async def close(self) -> None:
        tasks: List["asyncio.Future[None]"] = [*self._tasks, *([self._background_hello] if self._background_hello else [])]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        calls, err = self.session.fail("the client was closed")
        for c in calls:
            self._fail(c, err)
        if self._released:
            return
        self._released = True
        if self._loop is not None:
            for fd in self._fds:
                self._loop.remove_reader(fd)
        _release(self._ctx, self.sock, self._monitor)
