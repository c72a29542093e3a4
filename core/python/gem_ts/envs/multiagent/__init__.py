"""``gem.envs.multiagent`` (GEM's HEAD layout) is the same module as ``gem_ts.multiagent``."""

from ...multiagent import AgentSelector, MultiAgentEnv

__all__ = ["AgentSelector", "MultiAgentEnv"]
