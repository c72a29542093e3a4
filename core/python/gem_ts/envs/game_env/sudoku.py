"""GEM's ``gem.envs.game_env.sudoku``."""

from ._classes import SudokuEnv

__all__ = ["SudokuEnv"]
