"""GEM's ``gem.envs`` package: env classes a user imports and constructs directly.

``from gem_ts.envs.math_env import MathEnv`` and the rest mirror GEM's modules; constructing a class
makes a served env (see ``_served``). ``gem_ts.envs.multiagent`` holds the Python multi-agent base.
"""

from .registration import make, make_vec, print_envs, register

__all__ = ["make", "make_vec", "print_envs", "register"]
