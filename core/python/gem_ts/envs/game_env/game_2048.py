"""GEM's ``gem.envs.game_env.game_2048``."""

from ._classes import Game2048Env

__all__ = ["Game2048Env"]
