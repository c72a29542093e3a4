"""GEM's ``gem.tools.base_tool``: what a tool is to a user — an object configured here and run by the
gem-ts server (core/src/tools/), which parses the model's tool calls and executes them."""

from __future__ import annotations

from typing import Any, Dict, Tuple


class BaseTool:
    """A tool configured in Python and executed by the server's tool wrapper of ``wrapper_name``."""

    #: The server-side tool wrapper (core/src/tools/registerToolWrappers.ts) that runs this tool.
    wrapper_name: str = ""

    def __init__(self, num_workers: int = 1):
        self.num_workers = num_workers

    def wrapper_options(self) -> Dict[str, Any]:
        """This tool's settings as options of its server wrapper."""
        return {}

    def instruction_string(self) -> str:
        raise NotImplementedError(f"{type(self).__name__}: the server's tool wrapper writes the tool instructions into the observation")

    def execute_action(self, action: str) -> Tuple[bool, bool, str, str]:
        raise NotImplementedError(
            f"{type(self).__name__} runs on the gem-ts server: wrap an env with ToolEnvWrapper(env, tools=[...]) and step it"
        )

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.wrapper_options().items())
        return f"{type(self).__name__}({opts})"


__all__ = ["BaseTool"]
