"""GEM's ``gem.envs.game_env.mastermind``."""

from ._classes import MastermindEnv

__all__ = ["MastermindEnv"]
