"""GEM's ``gem.envs`` package: env classes a user imports and constructs directly."""
