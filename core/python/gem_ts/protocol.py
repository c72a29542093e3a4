"""Protocol v1 codecs on the Python side (docs/protocol.md is the contract).

Headers are msgpack maps; row batches are Arrow IPC streams with fixed schemas, or, for a few rows,
msgpack arrays inline in the header (the lean path: an Arrow stream costs ~100 µs to build and read
however few rows it holds).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

import msgpack
import numpy as np
import pyarrow as pa

PROTOCOL_VERSION = 1

STEP_REQUEST_SCHEMA = pa.schema(
    [pa.field("env_index", pa.int32(), nullable=False), pa.field("action", pa.string(), nullable=False)]
)

ROWS_SCHEMA = pa.schema(
    [
        pa.field("env_index", pa.int32(), nullable=False),
        pa.field("observation", pa.string(), nullable=False),
        pa.field("reward", pa.float64(), nullable=False),
        pa.field("terminated", pa.bool_(), nullable=False),
        pa.field("truncated", pa.bool_(), nullable=False),
        pa.field("info", pa.dictionary(pa.int32(), pa.string()), nullable=False),
    ]
)


def _to_plain(obj: Any) -> Any:
    """msgpack fallback: numpy scalars and arrays, tuples inside numpy, sets."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (set, frozenset)):
        return list(obj)
    raise TypeError(f"cannot send a {type(obj).__name__} over the wire")


_packer_default = _to_plain
#: One packer per thread, reused: ``msgpack.packb`` builds a new one (and its buffer) per message.
_packers = threading.local()


def pack(header: Dict[str, Any]) -> bytes:
    packer = getattr(_packers, "packer", None)
    if packer is None:
        packer = _packers.packer = msgpack.Packer(use_bin_type=True, default=_packer_default)
    data: bytes = packer.pack(header)  # a failed pack leaves the packer empty for the next one
    return data


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


@dataclass
class Rows:
    """One reset/step reply: rows in the order of ``env_index``."""

    env_index: np.ndarray  # int32
    observations: List[str]
    rewards: np.ndarray  # float64
    terminated: np.ndarray  # bool
    truncated: np.ndarray  # bool
    infos: List[Dict[str, Any]]

    def __len__(self) -> int:
        return len(self.observations)


_last_indices: List[Any] = [None, None]  # [the list object, its int32 array]


def _index_array(indices: Sequence[int]) -> pa.Array:
    # A vector env passes the same list of all indices at every full step: convert it once.
    if _last_indices[0] is indices:
        return _last_indices[1]
    arr = pa.array(indices, type=pa.int32())
    if isinstance(indices, tuple):
        _last_indices[0], _last_indices[1] = indices, arr
    return arr


#: An Arrow IPC stream is its schema message, its batches and this end-of-stream marker.
_EOS = b"\xff\xff\xff\xff\x00\x00\x00\x00"
#: The step request schema's message, written once (a stream writer writes it again for every message).
_STEP_SCHEMA_MESSAGE = STEP_REQUEST_SCHEMA.serialize().to_pybytes()


def encode_step_arrow(indices: Sequence[int], actions: Sequence[str]) -> bytes:
    """The step request body: the same bytes ``write_stream`` gives, from the schema message written
    once and the batch's own message."""
    batch = pa.RecordBatch.from_arrays([_index_array(indices), pa.array(actions, type=pa.string())], schema=STEP_REQUEST_SCHEMA)
    return b"".join((_STEP_SCHEMA_MESSAGE, batch.serialize(), _EOS))


def write_stream(batch_or_table: "pa.RecordBatch | pa.Table") -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch_or_table.schema) as writer:
        writer.write(batch_or_table)
    return sink.getvalue().to_pybytes()


def _infos_from_dictionary(col: "pa.Array | pa.ChunkedArray") -> List[Dict[str, Any]]:
    """Parses each distinct info JSON once; every row gets its own shallow copy."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    out: List[Dict[str, Any]] = []
    for chunk in chunks:
        if isinstance(chunk.type, pa.DictionaryType):
            parsed = [json.loads(t) for t in chunk.dictionary.to_pylist()]
            out.extend([parsed[i].copy() for i in chunk.indices.to_numpy(zero_copy_only=False).tolist()])
        else:
            out.extend(json.loads(t) for t in chunk.to_pylist())
    return out


_ROWS_NAMES = ROWS_SCHEMA.names


def decode_rows_arrow(body: "bytes | memoryview | pa.Buffer") -> Rows:
    """A rows body, read in place (``body`` may be the received frame's memory): each column once,
    numpy arrays of their own."""
    reader = pa.ipc.open_stream(body)
    if reader.schema.names != _ROWS_NAMES:
        raise ValueError(f"unexpected rows schema: {reader.schema}")
    batches = list(reader)
    if len(batches) == 1:  # what the server writes
        cols: Sequence[Any] = batches[0].columns
    else:
        cols = pa.Table.from_batches(batches, reader.schema).columns
    if len(cols[0]) == 0:
        return Rows(np.zeros(0, np.int32), [], np.zeros(0), np.zeros(0, bool), np.zeros(0, bool), [])
    return Rows(
        env_index=np.array(cols[0], dtype=np.int32),
        observations=cols[1].to_pylist(),
        rewards=np.array(cols[2], dtype=np.float64),
        terminated=np.array(cols[3], dtype=bool),
        truncated=np.array(cols[4], dtype=bool),
        infos=_infos_from_dictionary(cols[5]),
    )


def decode_rows_inline(rows: Dict[str, Any]) -> Rows:
    return Rows(
        env_index=np.asarray(rows["env_index"], dtype=np.int32),
        observations=list(rows["observation"]),
        rewards=np.asarray(rows["reward"], dtype=np.float64),
        terminated=np.asarray(rows["terminated"], dtype=bool),
        truncated=np.asarray(rows["truncated"], dtype=bool),
        infos=list(rows["info"]),
    )


def decode_rows(header: Dict[str, Any], body: Optional[bytes]) -> Rows:
    if "rows" in header:
        return decode_rows_inline(header["rows"])
    if body is None:
        if header.get("n", 0) == 0:
            return decode_rows_inline(
                {"env_index": [], "observation": [], "reward": [], "terminated": [], "truncated": [], "info": []}
            )
        raise ValueError("a rows reply without inline rows needs an Arrow body")
    return decode_rows_arrow(body)


def decode_step_request_arrow(body: bytes) -> Dict[str, list]:
    """For fixtures and tests: the columns of a step request body."""
    table = pa.ipc.open_stream(body).read_all()
    if table.schema.remove_metadata() != STEP_REQUEST_SCHEMA:
        raise ValueError(f"unexpected step request schema: {table.schema}")
    return {"env_index": table.column(0).to_pylist(), "action": table.column(1).to_pylist()}
