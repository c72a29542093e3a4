"""GEM's ``gem.tools``: tools a user constructs and wraps an env with; the gem-ts server runs them."""

from .base_tool import BaseTool
from .mcp_tool import MCPTool
from .python_code_tool import PythonCodeTool
from .search_tool import SearchTool
from .tool_env_wrapper import ToolEnvWrapper

__all__ = ["BaseTool", "MCPTool", "PythonCodeTool", "SearchTool", "ToolEnvWrapper"]
