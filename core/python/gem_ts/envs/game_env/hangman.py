"""GEM's ``gem.envs.game_env.hangman``."""

from ._classes import HangmanEnv

__all__ = ["HangmanEnv"]
