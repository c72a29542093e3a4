"""Multi-agent envs written in Python, with GEM's API (``gem.multiagent`` in gem-llm 0.1.0,
``gem.envs.multiagent`` at GEM's HEAD): subclass :class:`MultiAgentEnv`, pick turns with
:class:`AgentSelector`. They run in this process; the built-in multi-agent games (``multi:*``) run on
the server."""

from .agent_selector import AgentSelector
from .multi_agent_env import MultiAgentEnv

__all__ = ["AgentSelector", "MultiAgentEnv"]
