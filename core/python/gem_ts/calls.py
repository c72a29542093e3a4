"""Every operation of protocol v1 as data: argument checks, the request, and how its reply decodes.

Both clients (``Client`` over a blocking socket, ``aio.AsyncClient`` over asyncio) run these and only
these, so a check or a decoding rule exists once. A single request is a ``Call``; an operation that
needs several (pushing an inline dataset before ``make``) is a plan: a generator that yields calls and
receives their results, driven by either client.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, Dict, Generator, List, Mapping, Optional, Sequence, Tuple, Union, cast

import numpy as np

from . import hub, protocol
from ._contract import MakeReply, SpecReply
from .attributes import decode_value
from .datasets import inline_dataset, to_arrow_table
from .errors import DatasetMissingError, UnknownHandleError, error_from_wire
from .session import Call, Handle, Header, Session
from .wrappers.wrapper_factory import resolve_wrappers

Plan = Generator[Call[Any], Any, Any]
StepOne = Tuple[str, float, bool, bool, Dict[str, Any]]
ResetOne = Tuple[str, Dict[str, Any]]
StepReturn = Tuple[List[str], np.ndarray, np.ndarray, np.ndarray, List[Dict[str, Any]]]
Seed = Union[None, int, Sequence[int]]
Actions = Union[Sequence[str], Mapping[int, str]]

#: Seeds travel as JSON-safe integers (the server's numbers are doubles).
MAX_SEED = 2**53 - 1
_ENV_KWARGS = re.compile(r"^env(\d+)_kwargs$")

# ── argument checks ─────────────────────────────────────────────────────────────────────────────


def env_id_arg(env_id: Any, what: str = "make") -> str:
    if not isinstance(env_id, str):
        raise TypeError(f"{what}: an env id must be a string like 'game:GuessTheNumber-v0', not {type(env_id).__name__} ({env_id!r})")
    if not env_id:
        raise ValueError(f"{what}: the env id is empty")
    return env_id


def _one_seed(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what}: a seed must be an int (or a sequence of ints, or None), not {type(value).__name__} ({value!r})")
    seed = int(value)
    if not -MAX_SEED <= seed <= MAX_SEED:
        raise ValueError(f"{what}: seed {seed} is out of range; seeds are integers within ±(2**53 - 1)")
    return seed


def seed_arg(seed: Any, what: str = "reset") -> Union[None, int, List[int]]:
    """None, one int (Python or numpy), or a sequence of them; anything else names its type."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)):
        return _one_seed(seed, what)
    if isinstance(seed, (str, bytes, Mapping)) or not isinstance(seed, (Sequence, np.ndarray)):
        raise TypeError(f"{what}: a seed must be an int, a sequence of ints or None, not {type(seed).__name__} ({seed!r})")
    return [_one_seed(s, what) for s in seed]


def actions_arg(actions: Any, num_envs: int, all_indices: Sequence[int]) -> Tuple[Sequence[int], List[str]]:
    """(indices, actions) of a vector step: a list with one action per env, or {env_index: action}."""
    if type(actions) is list:  # the common case, without the ABC checks below
        acts: List[Any] = actions
        if len(acts) != num_envs:
            raise ValueError(f"step: got {len(acts)} actions for {num_envs} envs; pass a dict to step a subset")
        indices: Sequence[int] = all_indices
    elif isinstance(actions, Mapping):
        indices = [int(i) for i in actions.keys()]
        acts = list(actions.values())
    elif isinstance(actions, (str, bytes)) or not isinstance(actions, (Sequence, np.ndarray)):
        raise TypeError(
            f"step: actions must be a list with one action per env (or a dict {{env_index: action}}), not {type(actions).__name__}"
        )
    else:
        acts = actions if type(actions) is list else list(actions)
        if len(acts) != num_envs:
            raise ValueError(f"step: got {len(acts)} actions for {num_envs} envs; pass a dict to step a subset")
        indices = all_indices
    if set(map(type, acts)) - _STR:  # one C pass; the loop only runs to name the culprit
        for k, a in enumerate(acts):
            action_arg(a, int(indices[k]))
    return indices, acts


_STR = {str}


def action_arg(action: Any, index: int) -> str:
    if not isinstance(action, str):
        raise TypeError(f"step: the action for env {index} must be a string, not {type(action).__name__} ({action!r:.60})")
    return action


def reset_kwargs(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """Reset options as GEM's envs take them (``reset(idx=i)``) or as Gymnasium passes them
    (``reset(options={"idx": i})``): one flat dict, so an unknown key is named as the caller typed it."""
    options = kwargs.get("options")
    if "options" not in kwargs or options is None:
        return {k: v for k, v in kwargs.items() if k != "options"}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset: options must be a dict such as options={{'idx': 0}}, not {type(options).__name__}")
    rest = {k: v for k, v in kwargs.items() if k != "options"}
    both = sorted(set(rest) & set(options))
    if both:
        raise ValueError(f"reset: {', '.join(both)} given both as a keyword and in options=; give it once")
    return {**rest, **options}


def split_reset_kwargs(kwargs: Dict[str, Any], targets: Sequence[int]) -> Union[None, Dict[str, Any], List[Dict[str, Any]]]:
    """GEM's vector reset kwargs: ``env{i}_kwargs={...}`` for env i, everything else for all."""
    per_env: Dict[int, Dict[str, Any]] = {}
    shared: Dict[str, Any] = {}
    for key, value in reset_kwargs(kwargs).items():
        m = _ENV_KWARGS.match(key)
        if m:
            per_env[int(m.group(1))] = reset_kwargs(dict(value or {}))
        else:
            shared[key] = value
    if per_env:
        return [{**shared, **per_env.get(int(i), {})} for i in targets]
    return shared or None


# ── reply decoders ──────────────────────────────────────────────────────────────────────────────


def _header(header: Header, body: Optional[bytes]) -> Header:
    return header


def rows(header: Header, body: Optional[bytes]) -> protocol.Rows:
    return protocol.decode_rows(header, body)


def reset_pair(header: Header, body: Optional[bytes]) -> Tuple[List[str], List[Dict[str, Any]]]:
    """A vector reset reply as GEM's ``(observations, infos)``."""
    b = protocol.decode_rows(header, body)
    return b.observations, b.infos


def step_tuple(header: Header, body: Optional[bytes]) -> StepReturn:
    """A vector step reply as GEM's ``(observations, rewards, terminated, truncated, infos)``."""
    b = protocol.decode_rows(header, body)
    return b.observations, b.rewards, b.terminated, b.truncated, b.infos


def warn_past_end(info: Any) -> None:
    """The server's one warning per env stepped after its episode ended (core/src/core/pastEnd.ts)."""
    if isinstance(info, dict) and "past_end_warning" in info:
        warnings.warn(str(info["past_end_warning"]), UserWarning, stacklevel=4)


def step_one(header: Header, body: Optional[bytes]) -> StepOne:
    """A one-env step reply straight to GEM's tuple (no arrays built to be taken apart)."""
    r = header.get("rows")
    if r is None:
        b = protocol.decode_rows(header, body)
        warn_past_end(b.infos[0])
        return b.observations[0], float(b.rewards[0]), bool(b.terminated[0]), bool(b.truncated[0]), b.infos[0]
    warn_past_end(r["info"][0])
    return r["observation"][0], float(r["reward"][0]), bool(r["terminated"][0]), bool(r["truncated"][0]), r["info"][0]


def reset_one(header: Header, body: Optional[bytes]) -> ResetOne:
    r = header.get("rows")
    if r is None:
        b = protocol.decode_rows(header, body)
        return b.observations[0], b.infos[0]
    return r["observation"][0], r["info"][0]


# ── single requests ─────────────────────────────────────────────────────────────────────────────


def ping() -> Call[float]:
    return Call("ping", decode=lambda h, b: float(h["time_ms"]))


def list_envs(filter: Optional[str] = None, verbose: bool = False) -> Call[List[Any]]:
    fields: Header = {"verbose": bool(verbose)}
    if filter:
        fields["filter"] = str(filter)
    return Call("list_envs", fields, decode=lambda h, b: list(h["envs"]))


def spec(env_id: Optional[str] = None, handle: Optional[int] = None) -> Call[SpecReply]:
    fields: Header = {} if env_id is None else {"env_id": env_id_arg(env_id, "spec")}
    return Call("spec", fields, decode=lambda h, b: cast(SpecReply, h), handle=handle)


def make(session: Session, env_ids: Union[str, Sequence[str]], **fields: Any) -> Call[MakeReply]:
    """A make request; the reply's ``handle`` becomes a ``Handle`` of the server's current boot."""
    ids: Union[str, List[str]] = env_id_arg(env_ids) if isinstance(env_ids, str) else [env_id_arg(e) for e in _id_list(env_ids)]
    header: Header = {"env_ids": ids}
    for key, value in fields.items():
        if value is not None and value is not False:
            header[key] = value
    if "seed" in header:
        header["seed"] = _one_seed(header["seed"], "make")

    def decode(h: Header, b: Optional[bytes]) -> MakeReply:
        return cast(MakeReply, {**h, "handle": session.handle(int(h["handle"]), int(h["num_envs"]))})

    return Call("make", header, decode=decode)


def _id_list(env_ids: Any) -> List[Any]:
    if not isinstance(env_ids, Sequence) or isinstance(env_ids, (bytes, Mapping)):
        raise TypeError(f"make_vec: env ids must be a string or a list of strings, not {type(env_ids).__name__}")
    if not env_ids:
        raise ValueError("make_vec: the list of env ids is empty")
    return list(env_ids)


def reset(
    handle: int,
    *,
    seed: Seed = None,
    options: Union[None, Dict[str, Any], Sequence[Dict[str, Any]]] = None,
    indices: Optional[Sequence[int]] = None,
    decode: Any = rows,
) -> Call[Any]:
    fields: Header = {}
    s = seed_arg(seed)
    if s is not None:
        fields["seed"] = s
    if options is not None:
        if not isinstance(options, (Mapping, list, tuple)):
            raise TypeError(f"reset: options must be a dict (or one dict per env), not {type(options).__name__}")
        fields["options"] = dict(options) if isinstance(options, Mapping) else [dict(o) for o in options]
    if indices is not None:
        indices = [int(i) for i in indices]
        fields["indices"] = indices
        if isinstance(s, list) and len(s) != len(indices):
            raise ValueError(f"reset: got {len(s)} seeds for {len(indices)} envs")
    elif isinstance(s, list) and isinstance(handle, Handle) and len(s) != handle.num_envs:
        raise ValueError(f"reset: got {len(s)} seeds for {handle.num_envs} envs")
    return Call("reset", fields, decode=decode, handle=handle, indices=indices)


def step(handle: int, indices: Sequence[int], actions: Sequence[str], inline_max_rows: int, decode: Any = rows) -> Call[Any]:
    """Inline rows for a few envs (cheapest), an Arrow body for many."""
    if len(actions) <= inline_max_rows:
        t = type(indices)
        # A vector env's own index tuple holds ints already; anything else is converted.
        idx = indices if t is list else list(indices) if t is tuple else [int(i) for i in indices]
        acts = actions if type(actions) is list else list(actions)
        return Call("step", {"rows": {"env_index": idx, "action": acts}}, decode=decode, handle=handle, indices=indices)
    return Call("step", None, protocol.encode_step_arrow(indices, actions), decode, handle=handle, indices=indices)


def batch(handles: List[int], indices: List[int], actions: List[Optional[str]], seeds: Optional[List[Optional[int]]], options: Optional[List[Any]]) -> Call[List[Any]]:
    """Single-env steps and resets of any of this client's handles, one row each; a row whose action is
    None is a reset (with ``seeds[k]``, ``options[k]``). The reply is one outcome per row, in order: the
    step tuple, the reset pair, or the row's own error (a ``GemError`` to raise, naming its env)."""
    rows: Header = {"handle": handles, "env_index": indices, "action": actions}
    if seeds is not None:
        rows["seed"] = seeds
    if options is not None:
        rows["options"] = options
    return Call("batch", {"rows": rows}, decode=batch_each)


def batch_each(header: Header, body: Optional[bytes]) -> List[Any]:
    """A batch reply as one outcome per request row (see ``batch``)."""
    r = header["rows"]
    infos = r["info"]
    # Every row as a step tuple; the caller keeps (observation, info) of a reset row.
    out: List[Any] = list(zip(r["observation"], map(float, r["reward"]), r["terminated"], r["truncated"], infos))
    for info in infos:
        if "past_end_warning" in info:
            warn_past_end(info)
    for e in header.get("errors") or ():
        out[int(e["row"])] = error_from_wire(e)
    return out


def sample(handle: int, indices: Optional[Sequence[int]] = None) -> Call[List[str]]:
    fields: Header = {} if indices is None else {"indices": [int(i) for i in indices]}
    return Call("sample", fields, decode=lambda h, b: list(h["action"]), handle=handle, indices=fields.get("indices"))


def get_attr(handle: int, name: str, indices: Optional[Sequence[int]] = None) -> Call[List[Any]]:
    """An env attribute of each env at ``indices`` (all when None), in that order."""
    fields: Header = {"name": attr_name_arg(name)}
    if indices is not None:
        fields["indices"] = [int(i) for i in indices]
    return Call("get_attr", fields, decode=lambda h, b: [decode_value(name, v) for v in h["value"]], handle=handle, indices=fields.get("indices"))


def set_attr(handle: int, name: str, values: Sequence[Any], *, each: bool, indices: Optional[Sequence[int]] = None) -> Call[None]:
    """Writes an env attribute: ``values[k]`` to env ``indices[k]`` (``each``), else ``values[0]`` to every env."""
    fields: Header = {"name": attr_name_arg(name)}
    if indices is not None:
        fields["indices"] = [int(i) for i in indices]
    if each:
        fields["values"] = list(values)
    else:
        fields["value"] = values[0]
    return Call("set_attr", fields, decode=lambda h, b: None, handle=handle, indices=fields.get("indices"))


def attr_name_arg(name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"an attribute name must be a non-empty string, not {name!r}")
    return name


def close(handle: Optional[int] = None, timeout: Optional[float] = None) -> Call[Header]:
    return Call("close", handle=handle, timeout=timeout)


def close_handle(session: Session, handle: int) -> Generator[Call[Any], Any, None]:
    """Closes a handle unless it went with its server (a stale boot) or with the client."""
    if session.closed or session.is_stale(handle):
        return
    try:
        yield close(handle)
    except UnknownHandleError:
        if not session.is_stale(handle):
            raise


def register_dataset(name: str, arrow_stream: bytes) -> Call[Dict[str, Any]]:
    return Call(
        "register_dataset",
        {"name": str(name)},
        arrow_stream,
        decode=lambda h, b: {"name": h["name"], "rows": h["rows"], "columns": h["columns"]},
    )


def register_table(name: str, data: Any) -> Call[Dict[str, Any]]:
    """``data`` as ``to_arrow_table`` takes it, or an Arrow IPC stream already written (bytes)."""
    stream = bytes(data) if isinstance(data, (bytes, bytearray, memoryview)) else protocol.write_stream(to_arrow_table(data))
    return register_dataset(name, stream)


def register_env(
    env_id: str, description: Optional[str] = None, defaults: Optional[Dict[str, Any]] = None, decode: Any = _header
) -> Call[Any]:
    fields: Header = {"env_id": env_id_arg(env_id, "register")}
    if description:
        fields["description"] = description
    if defaults:
        fields["defaults"] = defaults
    return Call("register_env", fields, decode=decode)


def stats() -> Call[Dict[str, Any]]:
    return Call("stats", decode=lambda h, b: {"server": h["server"], "client": h["client"]})


# ── plans (several requests) ────────────────────────────────────────────────────────────────────


class PlanRun:
    """A plan being driven: ``call`` is the request it waits on, ``send`` gives it that request's
    result or error (thrown into the plan, so a plan may recover from one: ``with_hub_data``), and
    ``value`` is what it returned once ``done``. Both clients drive plans with it."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.done = False
        self.value: Any = None
        self.call: Optional[Call[Any]] = None
        self._go(lambda: next(plan))

    def _go(self, resume: Callable[[], Call[Any]]) -> None:
        try:
            self.call = resume()
        except StopIteration as finished:
            self.done, self.value, self.call = True, finished.value, None

    def send(self, result: Any = None, error: Optional[BaseException] = None) -> None:
        self._go((lambda: self.plan.throw(error)) if error is not None else (lambda: self.plan.send(result)))


def outcome(run: Callable[[Call[Any]], Any], call: Call[Any]) -> Tuple[Any, Optional[BaseException]]:
    try:
        return run(call), None
    except Exception as e:
        return None, e


def run_plan(plan: Plan, run: Callable[[Call[Any]], Any]) -> Any:
    """Drives a plan to its value with a blocking ``run``."""
    p = PlanRun(plan)
    while not p.done:
        p.send(*outcome(run, cast(Call[Any], p.call)))
    return p.value


def with_hub_data(build: Callable[[], Call[MakeReply]], session: Session) -> Plan:
    """A make call that, when the server has no data for a task env, loads it as GEM does (``hub``),
    pushes it under the name the server asks for and makes the env again (once per missing name)."""
    tried: set = set()
    while True:
        try:
            return (yield build())
        except DatasetMissingError as e:
            name = (e.data or {}).get("register_as") if isinstance(e.data, Mapping) else None
            if not hub.loadable(e) or not isinstance(name, str) or name in tried or not hub.enabled():
                raise
            tried.add(name)
            stream, _digest, _rows = hub.load_stream(e)
            hub.check_size(e, stream, session.limits.get("max_message_bytes"))
            started = hub.pushing(name, stream)
            yield register_dataset(name, stream)
            hub.pushed(name, started)


def pushed_options(options: Optional[Dict[str, Any]]) -> Plan:
    """Options with an inline dataset (HF Dataset, Arrow table, DataFrame) pushed and named."""
    pushed = inline_dataset(options)
    if pushed is None or options is None:
        return options
    yield register_dataset(*pushed)
    return {**options, "dataset": pushed[0]}


def make_vec(
    session: Session,
    env_ids: Union[str, Sequence[str]],
    wrappers: Optional[Sequence[Any]],
    vec_kwargs: Optional[Sequence[Dict[str, Any]]],
    async_mode: bool,
    seed: int,
    num_envs: Optional[int],
    autoreset_mode: Optional[str],
    options: Dict[str, Any],
) -> Plan:
    """GEM's make_vec: the make reply (``handle`` a ``Handle``)."""
    if isinstance(env_ids, str):
        env_id_arg(env_ids, "make_vec")
        count: Optional[int] = num_envs if num_envs is not None else 1
        n = count
    else:
        ids = _id_list(env_ids)
        count = None
        n = len(ids)
        if num_envs is not None and num_envs != n:
            raise ValueError(f"make_vec: num_envs ({num_envs}) differs from the {n} env ids given")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"make_vec: num_envs must be a positive int, not {n!r}")
    if vec_kwargs is not None and len(vec_kwargs) != n:
        raise ValueError(f"make_vec: vec_kwargs needs one dict per env ({n}), got {len(vec_kwargs)}")
    names, wrapper_options = resolve_wrappers(wrappers)
    opts = yield from pushed_options(options)
    vec_opts = None
    if vec_kwargs is not None:
        vec_opts = []
        for v in vec_kwargs:
            vec_opts.append((yield from pushed_options(dict(v or {}))))
    return (
        yield from with_hub_data(
            lambda: make(
                session,
                env_ids,
                num_envs=int(count) if count is not None else None,
                options=opts or None,
                vec_options=vec_opts,
                wrappers=names or None,
                wrapper_options=wrapper_options or None,
                autoreset_mode=autoreset_mode,
                seed=seed,
                async_mode=bool(async_mode),
            ),
            session,
        )
    )


def make_one(session: Session, env_id: str, options: Dict[str, Any], wrappers: Sequence[Any] = (), seed: Optional[int] = None) -> Plan:
    """GEM's make: a handle of one env with autoreset disabled."""
    env_id_arg(env_id)
    names, wrapper_options = resolve_wrappers(list(wrappers))
    opts = yield from pushed_options(options)
    return (
        yield from with_hub_data(
            lambda: make(
                session,
                env_id,
                num_envs=1,
                options=opts or None,
                wrappers=names or None,
                wrapper_options=wrapper_options or None,
                autoreset_mode="disabled",
                seed=seed,
            ),
            session,
        )
    )
