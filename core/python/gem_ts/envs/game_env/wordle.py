"""GEM's ``gem.envs.game_env.wordle``."""

from ._classes import WordleEnv

__all__ = ["WordleEnv"]
