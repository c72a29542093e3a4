"""The shared wire fixtures (core/test/fixtures/wire/v1), read by this suite and by vitest
(core/test/server/fixtures.test.ts): every fixture decodes here to what its JSON says; the
Python-written ones are still produced by today's encoders; the ones the server must refuse get
the documented error code from a live server."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import msgpack
import pyarrow as pa
import pytest
from raw_socket import raw_socket

from gem_ts import protocol
from write_wire_fixtures import FIXTURE_DIR, frames_of, python_fixtures

FIXTURES: List[Dict[str, Any]] = [json.loads(p.read_text()) for p in sorted(FIXTURE_DIR.glob("*.json"))]


def frames(fx: Dict[str, Any]) -> List[bytes]:
    return [(FIXTURE_DIR / name).read_bytes() for name in fx["frames"]]


def test_both_writers_present() -> None:
    writers = [fx["writer"] for fx in FIXTURES]
    assert writers.count("typescript") >= 10 and writers.count("python") >= 3


@pytest.mark.parametrize("fx", FIXTURES, ids=lambda f: f["name"])
def test_header_decodes(fx: Dict[str, Any]) -> None:
    header = frames(fx)[0]
    if fx["name"] == "bad_not_msgpack":
        with pytest.raises(Exception):
            msgpack.unpackb(header, raw=False)
        return
    assert protocol.unpack(header) == fx["header"]


@pytest.mark.parametrize("fx", [f for f in FIXTURES if f.get("body") and not f.get("expect_error")], ids=lambda f: f["name"])
def test_body_decodes(fx: Dict[str, Any]) -> None:
    body = frames(fx)[1]
    schema, expected = fx["body"]["schema"], fx["body"]["columns"]
    if schema == "step_request":
        assert protocol.decode_step_request_arrow(body) == expected
    elif schema == "rows":
        rows = protocol.decode_rows(protocol.unpack(frames(fx)[0]), body)
        got = {
            "env_index": rows.env_index.tolist(),
            "observation": rows.observations,
            "reward": rows.rewards.tolist(),
            "terminated": rows.terminated.tolist(),
            "truncated": rows.truncated.tolist(),
            "info": rows.infos,
        }
        assert got == expected
        assert rows.rewards.dtype == "float64" and rows.terminated.dtype == bool
    else:
        assert pa.ipc.open_stream(body).read_all().to_pydict() == expected


def test_inline_rows_decode_like_arrow_rows() -> None:
    fx = next(f for f in FIXTURES if f["name"] == "reset_reply_inline")
    rows = protocol.decode_rows(protocol.unpack(frames(fx)[0]), None)
    assert rows.observations == fx["header"]["rows"]["observation"]
    assert rows.rewards.dtype == "float64" and rows.env_index.dtype == "int32"


def test_python_encoders_reproduce_the_committed_fixtures() -> None:
    for spec in python_fixtures():
        fx = next(f for f in FIXTURES if f["name"] == spec["name"])
        fresh, committed = frames_of(spec), frames(fx)
        assert len(fresh) == len(committed)
        assert fresh[0] == committed[0], f"{spec['name']}: header bytes changed"
        if len(fresh) > 1:  # Arrow bytes may differ across pyarrow versions; the content may not
            assert pa.ipc.open_stream(fresh[1]).read_all().equals(pa.ipc.open_stream(committed[1]).read_all())


@pytest.mark.parametrize("fx", [f for f in FIXTURES if f.get("expect_error")], ids=lambda f: f["name"])
def test_server_refuses_bad_fixture(server, fx: Dict[str, Any]) -> None:
    sock = raw_socket(server.endpoint, timeout_s=10)
    try:
        sock.send_multipart(frames(fx))
        reply = protocol.unpack(sock.recv_multipart()[0])
        assert reply["ok"] is False and reply["error"]["code"] == fx["expect_error"]
        # The server answers normally right after.
        sock.send_multipart([protocol.pack({"v": 1, "id": 99, "op": "ping"})])
        assert protocol.unpack(sock.recv_multipart()[0])["ok"] is True
    finally:
        sock.close(0)
