"""GEM's ``gem.envs.game_env.fifteen_puzzle``."""

from ._classes import FifteenPuzzleEnv

__all__ = ["FifteenPuzzleEnv"]
