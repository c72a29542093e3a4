"""GEM's ``gem.envs.game_env.sokoban.sokoban``."""

from .._classes import SokobanEnv

__all__ = ["SokobanEnv"]
