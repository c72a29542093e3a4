"""gem-ts envs for verifiers 0.4: a taskset package (`--env.taskset.id gem_ts_verifiers`)."""
from .taskset import GemTsEnv, GemTsEnvConfig, GemTsTaskset, GemTsTasksetConfig, load_environment

# verifiers finds the plugin classes through __all__: exactly one Taskset and one Env subclass.
__all__ = ["GemTsEnv", "GemTsEnvConfig", "GemTsTaskset", "GemTsTasksetConfig", "load_environment"]
