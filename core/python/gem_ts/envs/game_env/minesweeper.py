"""GEM's ``gem.envs.game_env.minesweeper``."""

from ._classes import MinesweeperEnv

__all__ = ["MinesweeperEnv"]
