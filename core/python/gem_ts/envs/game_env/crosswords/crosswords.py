"""GEM's ``gem.envs.game_env.crosswords.crosswords``."""

from .._classes import CrosswordsEnv

__all__ = ["CrosswordsEnv"]
