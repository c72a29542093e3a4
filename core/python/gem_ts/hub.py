"""GEM's task datasets loaded the way GEM loads them: ``datasets.load_dataset(<hub name>)`` on the client.

A task env whose data the server cannot find fails to make with ``DATASET_MISSING`` and says where GEM
loads it from (``data``: ``hub``, ``split``, ``revision``, ``register_as``, and ``from_hub`` when the
hub location was all that named it). Where this process has the ``datasets`` library, ``calls`` loads
that dataset here (``HF_HOME``, ``HF_DATASETS_OFFLINE`` / ``HF_HUB_OFFLINE`` and the hub's own cache
apply as they do for GEM), pushes it to the server under ``register_as`` and makes the env again. A
table is loaded once per process and hub location; the server keeps it for the session.

``GEM_TS_HUB_DATASETS=0`` turns this off. This module imports no client (it runs inside ``calls``'
plans, which any client drives).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
import threading
import time
from typing import Any, Dict, Mapping, Optional, Tuple

from .datasets import to_arrow_table
from .errors import DatasetMissingError, GemError
from .protocol import write_stream

_log = logging.getLogger("gem_ts.hub")

#: Pushes at least this big say what they are doing (loading, size, time taken).
PROGRESS_BYTES = 16 * 2**20

#: (hub, split, revision) → (Arrow stream, sha1 of it, rows)
_cache: Dict[Tuple[str, Optional[str], Optional[str]], Tuple[bytes, str, int]] = {}
_lock = threading.Lock()


def enabled() -> bool:
    """Whether missing task data is loaded from the hub here: ``datasets`` is importable and
    ``GEM_TS_HUB_DATASETS`` is not 0."""
    if os.environ.get("GEM_TS_HUB_DATASETS", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    return importlib.util.find_spec("datasets") is not None


def loadable(err: GemError) -> bool:
    """A DATASET_MISSING that names a hub location and nothing else (not a missing file the user gave)."""
    data = err.data if isinstance(err.data, Mapping) else {}
    return isinstance(err, DatasetMissingError) and bool(data.get("from_hub")) and isinstance(data.get("hub"), str)


def say(text: str) -> None:
    """Progress on the ``gem_ts.hub`` logger where logging shows it, else on stderr."""
    if _log.hasHandlers() and _log.isEnabledFor(logging.INFO):
        _log.info(text)
    else:
        print(f"gem_ts: {text}", file=sys.stderr, flush=True)


def _pick_split(loaded: Any, hub: str, split: Optional[str]) -> Any:
    """GEM's rule for a DatasetDict: the split asked for, else its only split."""
    if split is not None or not hasattr(loaded, "keys"):
        return loaded
    splits = list(loaded.keys())
    if len(splits) == 1:
        return loaded[splits[0]]
    raise DatasetMissingError(
        "DATASET_MISSING",
        f"{hub!r} on the Hugging Face hub has splits {', '.join(map(repr, splits))}; say which one with split=…",
        {"hub": hub, "splits": splits},
    )


def unreachable(err: DatasetMissingError, cause: BaseException) -> DatasetMissingError:
    """The server's DATASET_MISSING, told as what happened here: the hub load failed, and how to work offline."""
    data: Dict[str, Any] = dict(err.data) if isinstance(err.data, Mapping) else {}
    env_id, hub, split, name = data.get("id"), data.get("hub"), data.get("split"), data.get("register_as")
    split_arg = f", split={split!r}" if split else ""
    revision = f", revision={data['revision']!r}" if data.get("revision") else ""
    offline = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("HF_DATASETS_OFFLINE")
    why = "offline mode is on (HF_HUB_OFFLINE / HF_DATASETS_OFFLINE) and it is not in the Hugging Face cache" if offline else "the Hugging Face hub could not be reached or refused it"
    home = os.environ.get("HF_HOME") or "~/.cache/huggingface"
    lines = [
        f"{env_id!r} needs {hub!r}{f' (split {split!r})' if split else ''}: gem_ts tried datasets.load_dataset({hub!r}{split_arg}{revision}) "
        f"as GEM does, and {why}: {type(cause).__name__}: {cause}",
        "Offline, provide it in one of these ways:",
        f"  - a local file: gem_ts.make({env_id!r}, dataset='/path/to/data.parquet') (JSONL, JSON, Parquet, Arrow IPC, or a folder written by save_to_disk);",
        f"  - pushed from a dataset you have: gem_ts.register_dataset({name!r}, datasets.load_from_disk('/path/to/saved'));",
        f"  - the Hugging Face cache (HF_HOME={home}): load it once where the hub is reachable, with the same HF_HOME, then set HF_HUB_OFFLINE=1;",
        f"  - a file under $GEM_TS_DATA_DIR on the server's machine: <dir>/{hub}/{split or 'train'}.parquet.",
    ]
    return DatasetMissingError("DATASET_MISSING", "\n".join(lines), {**data, "hub_error": f"{type(cause).__name__}: {cause}"})


def load_stream(err: DatasetMissingError) -> Tuple[bytes, str, int]:
    """The Arrow stream of the data ``err`` asks for, loaded with ``datasets.load_dataset`` (once per
    process and location): (stream, sha1 hex digest, rows). Raises ``unreachable(err, …)`` when it
    cannot be loaded."""
    data = err.data if isinstance(err.data, Mapping) else {}
    hub: str = data["hub"]
    split: Optional[str] = data.get("split")
    revision: Optional[str] = data.get("revision")
    key = (hub, split, revision)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            return hit
        import datasets  # the client's own install; only imported when a dataset is missing

        where = f"{hub!r}{f' split {split!r}' if split else ''}{f' revision {revision!r}' if revision else ''}"
        started = time.monotonic()
        try:
            loaded = datasets.load_dataset(hub, split=split, revision=revision)
        except Exception as e:  # ConnectionError, FileNotFoundError, DatasetNotFoundError, …: all mean "not here"
            raise unreachable(err, e) from e
        table = to_arrow_table(_pick_split(loaded, hub, split))
        stream = write_stream(table)
        if len(stream) >= PROGRESS_BYTES:
            say(f"loaded {where} from the Hugging Face hub/cache in {time.monotonic() - started:.1f} s: {table.num_rows:,} rows, {len(stream) / 2**20:.1f} MiB to push")
        out = (stream, hashlib.sha1(stream).hexdigest(), table.num_rows)
        _cache[key] = out
        return out


def check_size(err: DatasetMissingError, stream: bytes, max_message_bytes: Any) -> None:
    """A table bigger than the server takes in one message fails here, saying what to do, rather than
    as the server's MESSAGE_TOO_LARGE after the upload."""
    if not isinstance(max_message_bytes, (int, float)) or len(stream) <= max_message_bytes:
        return
    data: Dict[str, Any] = dict(err.data) if isinstance(err.data, Mapping) else {}
    raise DatasetMissingError(
        "DATASET_MISSING",
        f"{data.get('hub')!r} loaded from the Hugging Face hub is {len(stream) / 2**20:.1f} MiB as Arrow, more than this server "
        f"takes in one message ({max_message_bytes / 2**20:.0f} MiB): start it with a larger `gem-ts serve --max-message-bytes N`, "
        f"or give the data as a file on the server's machine: gem_ts.make({data.get('id')!r}, dataset='/path/to/data.parquet')",
        {**data, "bytes": len(stream), "max_message_bytes": max_message_bytes},
    )


def pushing(name: str, stream: bytes) -> Optional[float]:
    """Says that a large push starts (and returns its start time, for ``pushed``); None for a small one."""
    if len(stream) < PROGRESS_BYTES:
        return None
    say(f"pushing {name!r} to the server ({len(stream) / 2**20:.1f} MiB)…")
    return time.monotonic()


def pushed(name: str, started: Optional[float]) -> None:
    if started is not None:
        say(f"pushed {name!r} in {time.monotonic() - started:.1f} s")
