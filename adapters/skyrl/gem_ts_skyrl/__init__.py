"""gem-ts envs for SkyRL: skyrl_gym BaseTextEnv classes registered under gem-ts ids."""
from .env import GemTsTextEnv, episode_row
from .registration import GENERIC_ID, PREFIX, register_envs, register_generic

register_generic()

__all__ = ["GENERIC_ID", "PREFIX", "GemTsTextEnv", "episode_row", "register_envs", "register_generic"]
