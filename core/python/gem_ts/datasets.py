"""Tables as the server takes them: any table-like value as an Arrow table, and GEM's
``make(id, dataset=<a loaded dataset>)`` as a table to push first. Pure: no client, no I/O
(``gem_ts.register_dataset`` in client.py does the pushing).

Task envs look a dataset name up among pushed tables before they look at files, so a trainer that
can load a Hugging Face dataset hands it to a server that cannot.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Dict, Optional, Tuple

import pyarrow as pa

from .protocol import write_stream


def to_arrow_table(data: Any) -> pa.Table:
    """A pyarrow Table from a Table, RecordBatch, HF ``datasets.Dataset``, pandas frame, dict of
    columns or list of row dicts."""
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    inner = getattr(data, "data", None)  # datasets.Dataset keeps an arrow table here
    if inner is not None and hasattr(data, "column_names"):
        table = getattr(inner, "table", inner)
        if isinstance(table, pa.Table):
            indices = getattr(data, "_indices", None)
            if indices is not None:  # a shuffled/selected view: materialise it
                return pa.Table.from_pylist(list(data))
            return table
    if hasattr(data, "to_arrow"):
        return data.to_arrow()
    if type(data).__name__ == "DataFrame" and hasattr(data, "to_dict"):
        return pa.Table.from_pandas(data, preserve_index=False)
    if isinstance(data, dict):
        return pa.table(data)
    if isinstance(data, list):
        return pa.Table.from_pylist(data)
    raise TypeError(f"cannot turn a {type(data).__name__} into an Arrow table")


def _is_plain(value: Any) -> bool:
    """Values the server reads from the header as they are: a path/name, or a list of row dicts."""
    if value is None or isinstance(value, (str, os.PathLike)):
        return True
    return isinstance(value, list) and all(isinstance(r, dict) for r in value)


def inline_dataset(options: Optional[Dict[str, Any]]) -> Optional[Tuple[str, bytes]]:
    """GEM's ``make(id, dataset=<a loaded dataset>)``: for a table-like ``dataset`` (HF Dataset,
    pyarrow Table, pandas frame, dict of columns), the name to push it under (derived from its
    content, so pushing twice is harmless) and its Arrow stream; None when nothing needs pushing."""
    if not options or _is_plain(options.get("dataset")):
        return None
    stream = write_stream(to_arrow_table(options["dataset"]))
    return "inline/" + hashlib.sha1(stream).hexdigest()[:16], stream
