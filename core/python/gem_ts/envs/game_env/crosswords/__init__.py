"""GEM's ``gem.envs.game_env.crosswords`` package."""

from .._classes import CrosswordsEnv

__all__ = ["CrosswordsEnv"]
