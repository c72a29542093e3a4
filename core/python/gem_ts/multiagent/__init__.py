"""Multi-agent envs written in Python, with GEM's API (``gem.multiagent`` in gem-llm 0.1.0,
``gem.envs.multiagent`` at GEM's HEAD): subclass :class:`MultiAgentEnv`, pick turns with
:class:`AgentSelector`. They run in this process, also when ``gem_ts.register``ed and made through the
server (played from the acting agent's view, see :mod:`.served`); the built-in multi-agent games
(``multi:*``) run on the server."""

from .agent_selector import AgentSelector
from .multi_agent_env import MultiAgentEnv

__all__ = ["AgentSelector", "MultiAgentEnv"]
