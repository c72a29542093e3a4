"""GEM's ``gem.envs.registration``: make, make_vec, register, print_envs."""

from ..registration import make, make_vec, print_envs, register

__all__ = ["make", "make_vec", "print_envs", "register"]
