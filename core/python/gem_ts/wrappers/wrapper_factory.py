"""GEM's wrapper factory: ``get_wrapper_fns("concat,episode_tracking", tokenizer=None)``.

In GEM each name maps to a wrapper class applied in Python. Here a name maps to a ``WrapperFn`` that
carries the name (and options such as a tokenizer's chat template) to the server, which builds the
same stack in TypeScript. ``make_vec(..., wrappers=fns)`` takes the list as in GEM, and calling a
``WrapperFn`` on an env made by ``gem_ts.make`` rebuilds that env with the wrapper on top.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any, Dict, List, Optional

from .._contract import InvalidWrapperError

#: GEM's wrapper names; the server may know more (``time_limit``), and validates every name.
WRAPPER_NAMES = (
    "python_tool",
    "python_tool_no_int_reward",
    "python_tool_no_int_reward_last_line_error",
    "search_tool",
    "search_tool_no_int_reward",
    "concat",
    "concat_with_action",
    "concat_chat",
    "concat_chat_on_reset",
    "episode_tracking",
)

CHAT_WRAPPERS = ("concat_chat", "concat_chat_on_reset")

#: Names only the server's catalogue has (gem-ts additions); with GEM's, what ``get_wrapper_fns`` accepts.
SERVER_WRAPPER_NAMES = ("time_limit", "mcp_tool")


def _check_name(name: str) -> None:
    """A misspelt name fails here, where it was typed, not at the later ``make``."""
    known = WRAPPER_NAMES + SERVER_WRAPPER_NAMES
    if name in known:
        return
    close = get_close_matches(name, known, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise InvalidWrapperError("INVALID_WRAPPER", f"Unknown wrapper '{name}'.{hint} Known wrappers: {', '.join(known)}.", {"name": name})

#: Where each kind sits in the stack GEM's docs describe (tool, then observation, then tracking);
#: GEM builds any order as given, and so do we, with a warning (what the model sees changes).
_KIND_RANK = {"time_limit": 0, "concat": 2, "concat_with_action": 2, "concat_chat": 2, "concat_chat_on_reset": 2, "episode_tracking": 3}


def _rank(name: str) -> int:
    return _KIND_RANK.get(name, 1 if "tool" in name or name == "mcp" else -1)


def warn_if_reordered(names: List[str]) -> None:
    ranks = [_rank(n) for n in names]
    known = [r for r in ranks if r >= 0]
    if any(b < a for a, b in zip(known, known[1:])):
        order = sorted(names, key=lambda n: max(_rank(n), 0))
        warnings.warn(
            f"wrappers {','.join(names)} are built in that order (innermost first), as GEM builds them; "
            f"the usual order is {','.join(order)}, and this one changes what the model sees "
            "(e.g. an observation wrapper below episode_tracking or a tool wrapper outside concat)",
            stacklevel=3,
        )


class _WrapperConstructor:
    """``WRAPPER_FACTORY[name](env, **kwargs)``: the wrapper applied to a served env (GEM's partials)."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, env: Any, tokenizer: Optional[Any] = None, **kwargs: Any) -> Any:
        opts: Dict[str, Any] = dict(kwargs)
        if self.name in CHAT_WRAPPERS:
            if tokenizer is None:
                raise ValueError(f"the '{self.name}' wrapper needs a tokenizer (or a chat template string)")
            opts.update(chat_template_options(tokenizer))
        return WrapperFn(self.name, opts)(env)

    def __repr__(self) -> str:
        return f"WRAPPER_FACTORY[{self.name!r}]"


@dataclass(frozen=True)
class WrapperFn:
    """A wrapper by name, as ``make_vec``'s ``wrappers`` list holds it."""

    name: str
    options: Dict[str, Any] = field(default_factory=dict)

    def __call__(self, env: Any) -> Any:
        with_wrappers = getattr(env, "with_wrappers", None)
        if with_wrappers is None:
            raise TypeError(
                f"the '{self.name}' wrapper runs on the gem-ts server: apply it to an env made by gem_ts.make, "
                "or pass it to gem_ts.make_vec(wrappers=...)"
            )
        return with_wrappers([self])

    def __repr__(self) -> str:
        return f"WrapperFn({self.name!r})"


def chat_template_options(tokenizer: Any) -> Dict[str, Any]:
    """The server-side options of a tokenizer: its Jinja chat template and special tokens.

    A string is taken as the template itself, or a built-in name ('chatml', 'qwen', 'llama3').
    """
    if isinstance(tokenizer, str):
        return {"chat_template": tokenizer}
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):  # some tokenizers keep several named templates
        template = template.get("default") or next(iter(template.values()), None)
    if not isinstance(template, str) or not template:
        raise ValueError("the tokenizer has no chat_template; pass a tokenizer with one, or a template string")
    opts: Dict[str, Any] = {"chat_template": template}
    variables = {k: getattr(tokenizer, k, None) for k in ("bos_token", "eos_token", "pad_token")}
    variables = {k: v for k, v in variables.items() if isinstance(v, str)}
    if variables:
        opts["chat_template_vars"] = variables
    return opts


#: GEM's name -> wrapper table; each entry wraps an env: ``WRAPPER_FACTORY["concat"](env)``.
WRAPPER_FACTORY: Dict[str, _WrapperConstructor] = {name: _WrapperConstructor(name) for name in WRAPPER_NAMES}

#: GEM's list of the wrappers that need a tokenizer.
TOKENIZER_REQUIRED = list(CHAT_WRAPPERS)


def get_wrapper_fns(wrappers: str, tokenizer: Optional[Any] = None) -> List[WrapperFn]:
    """GEM's signature: comma-separated names, innermost first."""
    fns: List[WrapperFn] = []
    for name in (w.strip() for w in (wrappers or "").split(",")):
        if not name:
            continue
        _check_name(name)
        if name in CHAT_WRAPPERS:
            if tokenizer is None:
                raise ValueError(f"the '{name}' wrapper needs a tokenizer (or a chat template string)")
            fns.append(WrapperFn(name, chat_template_options(tokenizer)))
        else:
            fns.append(WrapperFn(name))
    return fns


def resolve_wrappers(wrappers: Any) -> "tuple[List[str], Dict[str, Any]]":
    """Names and the merged option bag from WrapperFns, names, or GEM's comma string."""
    if wrappers is None:
        return [], {}
    if isinstance(wrappers, str):
        wrappers = [w for w in wrappers.split(",") if w.strip()]
    names: List[str] = []
    options: Dict[str, Any] = {}
    for w in wrappers:
        if isinstance(w, WrapperFn):
            names.append(w.name)
            options.update(w.options)
        elif isinstance(w, str):
            names.append(w.strip())
        else:
            raise TypeError(
                f"gem_ts wrappers run on the server and are given by name: got {w!r}; "
                "use gem_ts.wrappers.get_wrapper_fns('concat,episode_tracking') or a list of names"
            )
    warn_if_reordered(names)
    return names, options
