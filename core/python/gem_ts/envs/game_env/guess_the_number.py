"""GEM's ``gem.envs.game_env.guess_the_number``."""

from ._classes import GuessTheNumberEnv

__all__ = ["GuessTheNumberEnv"]
