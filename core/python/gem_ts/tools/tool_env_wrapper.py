"""GEM's ``gem.tools.tool_env_wrapper``: ``ToolEnvWrapper(env, tools=[PythonCodeTool()], ...)``.

The wrapped env is the same served env rebuilt with the tools' server-side wrappers on top (one per
tool, innermost first in the order given) and this wrapper's rewards; the env passed in is closed.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from ..env import ServerEnv
from ..wrappers.wrapper_factory import WrapperFn
from .base_tool import BaseTool


class ToolEnvWrapper(ServerEnv):
    def __init__(
        self,
        env: Any,
        tools: Sequence[BaseTool],
        tool_reward: float = 0.0,
        tool_success_reward: float = 0.0,
        max_tool_uses: Optional[int] = 10,
    ):
        if not isinstance(env, ServerEnv):
            raise TypeError(
                f"ToolEnvWrapper: tools run on the gem-ts server, so the env must be one it serves (gem_ts.make or a gem_ts.envs class), not {type(env).__name__}"
            )
        tools = list(tools)
        if not tools or not all(isinstance(t, BaseTool) for t in tools):
            raise TypeError("ToolEnvWrapper: tools must be a non-empty list of gem_ts.tools tools (PythonCodeTool, SearchTool, MCPTool)")
        # Plain fields, set before the env exists (afterwards a new name would be the served env's).
        self.tools: List[BaseTool] = tools
        self.tool_reward = tool_reward
        self.tool_success_reward = tool_success_reward
        self.max_tool_uses = max_tool_uses
        rewards = {"tool_reward": tool_reward, "tool_success_reward": tool_success_reward, "max_tool_uses": max_tool_uses}
        fns = [WrapperFn(t.wrapper_name, {**t.wrapper_options(), **rewards}) for t in tools]
        super().__init__(env.client, env.env_id, env._options, [*env._wrapper_list, *fns], env._seed)
        self.verbose = env.verbose
        env.close()


__all__ = ["ToolEnvWrapper"]
