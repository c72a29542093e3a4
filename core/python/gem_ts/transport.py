"""The two transports of the client: a blocking one and an asyncio one.

They only move frames and keep time; the protocol (framing, hello and boot identity, liveness,
errors, env state) is ``session.Session``'s, and the wire is a link's: ``zmq_link.ZmqLink`` (a ZeroMQ
DEALER, for ``ipc://`` and ``tcp://``) or ``stream_link.StreamLink`` (a plain socket, for ``stream+ipc://``
and ``stream+tcp://``). Either refuses a send while the server is not connected rather than queue it.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, Union

import zmq

from .errors import GemError
from .session import Call, Frames, Header, Session
from .stream_link import StreamLink, is_stream_endpoint
from .zmq_link import ZmqLink

T = TypeVar("T")
Reply = Tuple[Header, Optional[bytes]]
Link = Union[ZmqLink, StreamLink]

#: What a link raises when it was closed under a reader or the watchdog.
_LINK_CLOSED = (zmq.ZMQError, OSError)
#: A waiting call looks at the connection and the clock this often while the server is silent.
SLICE_S = 0.05


class _Replaced(Exception):
    """A request that waited for the connection found a new one (the server restarted, or the link
    reconnected): it is not sent there before a hello (token, resume secret, the Python envs to
    register again), and then it goes again, admitted anew."""


def _replaced(session: Session, call: Call[Any]) -> bool:
    """Whether ``call``, still unsent, must wait for a hello on a connection that came back."""
    if call.header["op"] == "hello" or not (session.needs_hello and session.connected and session.resume is not None):
        return False
    session.pending.pop(call.rid, None)
    return True


def open_link(session: Session, prefix: bytes) -> Link:
    """The link the session's endpoint names; ``prefix`` starts a ZeroMQ routing id (py-/pa-)."""
    if is_stream_endpoint(session.endpoint):
        return StreamLink(session)
    return ZmqLink(session, prefix, SLICE_S)


class BlockingTransport:
    """For synchronous callers. A daemon thread pings while the caller is idle and answers the server's
    ``env_call`` messages then, so a trainer that generates for minutes keeps its envs."""

    def __init__(self, session: Session, heartbeat: bool = True):
        self.session = session
        self.link = open_link(session, b"py-")
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
            self.link.maintain()
            if s.needs_hello and call.header["op"] != "hello":
                self._hello()
            s.admit(call)
            try:
                return self._exchange(call)
            except _Replaced:
                pass
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
            incoming = self.link.recv(SLICE_S)
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
        while not self.link.try_send(frames):
            # Not connected: wait for the server within the grace period.
            self.link.maintain(SLICE_S)
            dead = s.local_problem() if s.local_problem else None
            if dead or time.monotonic() > s.send_deadline():
                raise s.unsent(call)
            if _replaced(s, call):
                raise _Replaced()

    def _silence(self, call: Call[Any]) -> None:
        """A slice passed without a message: look at the connection, the server and the clock."""
        s = self.session
        self.link.maintain()
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
        self.link.try_send(self.session.ping_frames(now))

    def _answer(self, env_call: Header) -> None:
        if self.link.try_send([self.session.env_return(env_call)]):
            self.session.last_tx = time.monotonic()
        # else the server that asked is gone; its liveness check reports that

    def _heartbeat_loop(self) -> None:
        s = self.session
        pid = os.getpid()
        while not self._stop.wait(s.heartbeat_s / 2):
            if s.closed or os.getpid() != pid:
                return
            if not self._lock.acquire(blocking=False):
                continue  # the caller is talking to the server right now
            try:
                self.link.maintain()
                now = time.monotonic()
                if s.wants_hello:
                    try:
                        self._hello()
                    except GemError:
                        pass  # the caller's next request says hello again and reports what is wrong
                elif s.wants_ping(now) and s.connected:
                    self._ping(now)
                # Serve env_calls (and drop ping replies) while the caller is busy elsewhere.
                while (incoming := self.link.recv_nowait()) is not None:
                    r = s.receive(incoming, time.monotonic())
                    if isinstance(r, dict):
                        self._answer(r)
                    elif r is not None:
                        self._replies[r[0].rid] = (r[1], r[2])
            except _LINK_CLOSED:
                return
            finally:
                self._lock.release()

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            if self._released:
                return
            self._released = True
            self.link.close()


class AsyncTransport:
    """For asyncio callers: many requests in flight, replies read by a callback on the socket's file
    descriptor (no task, no future per message: a reply reaches the code waiting on it in the same
    event-loop turn it is read), one watchdog task (pings, liveness, timeouts). After the server went
    away, the next request says hello again, so a client recovers when the server is back.

    The link's socket is driven from the event loop: the reader drains every message that is there
    (a ZeroMQ link also looks again after each send, as its descriptor signals edges)."""

    def __init__(self, session: Session):
        self.session = session
        self.link = open_link(session, b"pa-")
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
        self.link.attach(loop, self._readable)
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
        except _Replaced:
            pass
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
        if not self.link.try_send(frames):
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

    async def _send(self, call: Call[Any], frames: Frames) -> None:
        s = self.session
        while not self.link.try_send(frames):
            # Not connected: wait for the server within the grace period.
            wait = min(SLICE_S, s.send_deadline() - time.monotonic())
            dead = s.local_problem() if s.local_problem else None
            if dead or wait <= 0:
                raise s.unsent(call)
            await asyncio.sleep(min(wait, 0.005))
            self.link.maintain()
            if _replaced(s, call):
                raise _Replaced()

    def _readable(self) -> None:
        """Every message that is there, each to the call waiting on it (or answered: an env_call)."""
        if self._released:
            return
        s, link = self.session, self.link
        try:
            while (incoming := link.recv_nowait()) is not None:
                r = s.receive(incoming, time.monotonic())
                if r is None:
                    continue
                if isinstance(r, dict):
                    if link.try_send([s.env_return(r)]):
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
        except _LINK_CLOSED:
            return

    async def _watch(self) -> None:
        s = self.session
        try:
            while True:
                await asyncio.sleep(SLICE_S)
                # A descriptor's edge may have gone to another call on the socket in between.
                self.link.maintain()
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
                    self.link.try_send(s.ping_frames(now))
        except (asyncio.CancelledError, *_LINK_CLOSED):
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
        self.link.close()
