"""NeMo Gym dataset rows for gem-ts episodes: one JSONL line per (env id, seed)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

import gem_ts
import gem_ts.wrappers
from gem_ts_adapter_kit.rows import EnvRow, WrappersLike, parse_wrappers

from .server import step_tool


def dataset_rows(
    env_id: str,
    seeds: Iterable[int],
    *,
    options: Optional[Mapping[str, Any]] = None,
    wrappers: WrappersLike = None,
    tools: bool = True,
    instructions: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """Rows a NeMo Gym agent's ``/run`` takes: the gem-ts row columns (``env_id``, ``seed``,
    ``options`` as JSON text, ``wrappers``) plus ``responses_create_params`` whose input is the env's
    first observation for that seed (read by resetting the env here) and, with ``tools``, the ``step``
    tool. Without tools the model answers in one message, which verify steps (single-turn envs)."""
    names = parse_wrappers(wrappers)
    opts = dict(options or {})
    env = gem_ts.make(env_id, **opts)
    if names:
        env = env.with_wrappers(gem_ts.wrappers.get_wrapper_fns(",".join(names)))
    rows = []
    try:
        for seed in seeds:
            row = EnvRow(env_id, seed, opts, names)
            first, _ = env.reset(seed=row.seed)
            messages: List[Dict[str, str]] = []
            if instructions:
                messages.append({"role": "developer", "content": instructions})
            messages.append({"role": "user", "content": first})
            params: Dict[str, Any] = {"input": messages}
            if tools:
                params["tools"] = [step_tool()]
            rows.append({**row.to_dict(), "responses_create_params": params})
    finally:
        env.close()
    return rows


def write_jsonl(path: Union[str, Path], rows: Sequence[Mapping[str, Any]]) -> Path:
    out = Path(path)
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    return out
