"""Entrypoint NeMo Gym's launcher runs for this resources server (``entrypoint: app.py`` in a config)."""
from gem_ts_nemo_gym.server import GemTsResourcesServer

if __name__ == "__main__":
    GemTsResourcesServer.run_webserver()
