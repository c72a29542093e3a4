"""GEM's ``gem.tools.python_code_tool``: Python code blocks in the model's reply run in gem-ts's sandbox."""

from __future__ import annotations

from typing import Any, Dict

from .base_tool import BaseTool


class PythonCodeTool(BaseTool):
    def __init__(self, timeout: int = 5, sandbox_type: str = "none", keep_error_last_line: bool = False):
        super().__init__()
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError(f"PythonCodeTool: timeout must be a positive number of seconds, not {timeout!r}")
        self.timeout = timeout
        self.sandbox_type = sandbox_type  # accepted for GEM; gem-ts always runs code in its sandbox
        self.keep_error_last_line = keep_error_last_line

    @property
    def wrapper_name(self) -> str:  # type: ignore[override]
        return "python_tool_no_int_reward_last_line_error" if self.keep_error_last_line else "python_tool_no_int_reward"

    def wrapper_options(self) -> Dict[str, Any]:
        return {"python_timeout": self.timeout}


__all__ = ["PythonCodeTool"]
