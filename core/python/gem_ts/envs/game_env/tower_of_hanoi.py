"""GEM's ``gem.envs.game_env.tower_of_hanoi``."""

from ._classes import TowerofHanoiEnv

__all__ = ["TowerofHanoiEnv"]
