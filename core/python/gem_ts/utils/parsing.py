"""Answer extraction, as GEM's ``gem.utils.parsing`` exposes it.

The served envs grade on the server (TypeScript); these functions are for user code that parses model
output itself (reward functions, evaluation scripts) and must find what the envs find.
"""

from __future__ import annotations

import re
from typing import Optional

_BOX_COMMANDS = ("\\boxed", "\\fbox")


def last_boxed_only_string(text: str) -> Optional[str]:
    """The last ``\\boxed{...}`` (or ``\\fbox{...}``) group with its command, braces balanced; None if absent
    or unclosed."""
    start = text.rfind(_BOX_COMMANDS[0])
    if start < 0:
        start = text.rfind(_BOX_COMMANDS[1])
        if start < 0:
            return None
    depth = 0
    for end in range(start, len(text)):
        ch = text[end]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : end + 1]
    return None


def remove_boxed(boxed: Optional[str]) -> Optional[str]:
    """``\\boxed{x}`` → ``x``; anything else (including ``\\fbox{x}``, as in GEM) → None."""
    prefix = "\\boxed{"
    if isinstance(boxed, str) and boxed.startswith(prefix) and boxed.endswith("}"):
        return boxed[len(prefix) : -1]
    return None


def extract_last_boxed_answer(solution: str) -> Optional[str]:
    """The content of the last ``\\boxed{}`` in ``solution``, or None."""
    return remove_boxed(last_boxed_only_string(solution))


_FENCED = re.compile(r"```(?:\w+)?\n(.*?)```", re.DOTALL)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def extract_code_from_model(model_response: str) -> Optional[str]:
    """The last fenced code block (a language word, then a newline), stripped; None if there is none."""
    blocks = _FENCED.findall(model_response)
    return blocks[-1].strip() if blocks else None


def extract_last_tagged_answer(model_response: str) -> Optional[str]:
    """The last ``<answer>...</answer>`` content, stripped; None if there is none."""
    found = _ANSWER_TAG.findall(model_response)
    return found[-1].strip() if found else None


__all__ = [
    "extract_code_from_model",
    "extract_last_boxed_answer",
    "extract_last_tagged_answer",
    "last_boxed_only_string",
    "remove_boxed",
]
