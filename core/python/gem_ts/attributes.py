"""Env attributes over the wire, the Gymnasium way: ``env.answer``, ``env.max_turns = 5``.

GEM users read and write env state as plain attributes. A served env's state lives on the server, so
``ServerEnv`` turns an attribute it does not hold itself into a ``get_attr``/``set_attr`` request for
the names the env declares (core/src/core/envAttributes.ts). An undeclared name raises
``AttributeError`` naming the declared ones; a write is applied on the server or raises, never dropped.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any, Dict, List, Sequence, Union, overload


class DatasetRows(List[Dict[str, Any]]):
    """A dataset read as ``env.dataset``: a list of row dicts that also answers ``ds["column"]``,
    ``ds.column_names`` and ``len(ds)`` like the Hugging Face ``Dataset`` GEM's envs hold."""

    @property
    def column_names(self) -> List[str]:
        return list(self[0].keys()) if self else []

    @property
    def num_rows(self) -> int:
        return len(self)

    @overload  # type: ignore[override]
    def __getitem__(self, key: str) -> List[Any]: ...
    @overload
    def __getitem__(self, key: int) -> Dict[str, Any]: ...
    @overload
    def __getitem__(self, key: slice) -> "DatasetRows": ...

    def __getitem__(self, key: Union[str, int, slice]) -> Any:
        if isinstance(key, str):
            if self and key not in self[0]:
                raise KeyError(f"no column {key!r}; columns: {self.column_names}")
            return [row.get(key) for row in self]
        if isinstance(key, slice):
            return DatasetRows(super().__getitem__(key))
        return super().__getitem__(key)


def decode_value(name: str, value: Any) -> Any:
    """Wire values to what a GEM user gets: rows become a ``datasets.Dataset`` as in GEM's envs where
    that library is installed, else ``DatasetRows``."""
    if name == "dataset" and isinstance(value, list):
        return _as_dataset(value)
    return value


def _as_dataset(rows: List[Dict[str, Any]]) -> Any:
    if importlib.util.find_spec("datasets") is None:
        return DatasetRows(rows)
    import datasets
    import pyarrow as pa

    try:
        return datasets.Dataset.from_list(rows)
    except (pa.ArrowException, TypeError, ValueError) as e:
        # Rows whose columns mix types (a JSONL file may) have no Arrow schema: keep them as rows.
        warnings.warn(f"env.dataset: the rows do not form a datasets.Dataset ({e}); returning them as a list of dicts", stacklevel=4)
        return DatasetRows(rows)


def per_env_values(values: Any, n: int) -> "tuple[bool, List[Any]]":
    """Gymnasium's set_attr: a list/tuple holds one value per env, anything else is for all envs."""
    if isinstance(values, (list, tuple)):
        if len(values) != n:
            raise ValueError(f"set_attr: got {len(values)} values for {n} envs; pass one value (for all) or one per env")
        return True, list(values)
    return False, [values] * n


def is_remote_name(name: str) -> bool:
    """Private and dunder names never go to the server (copy, pickle and numpy probe those)."""
    return not name.startswith("_")


def checked_indices(indices: Sequence[int], num_envs: int) -> List[int]:
    out = [int(i) for i in indices]
    for i in out:
        if not 0 <= i < num_envs:
            raise IndexError(f"env index {i} is out of range for {num_envs} envs")
    return out
