"""GEM's ``gem.envs.game_env.sokoban`` package."""

from .._classes import SokobanEnv

__all__ = ["SokobanEnv"]
