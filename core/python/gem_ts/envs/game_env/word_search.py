"""GEM's ``gem.envs.game_env.word_search``."""

from ._classes import WordSearchEnv

__all__ = ["WordSearchEnv"]
