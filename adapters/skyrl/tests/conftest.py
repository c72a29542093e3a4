import os

import pytest

# No model hub here; math rows come inline through the `dataset` option.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

GAME = "game:GuessTheNumber-v0-easy"
MATH = "math:Math12K"
ROWS = [{"problem": "What is 6*7?", "answer": "42"}, {"problem": "What is 2+3?", "answer": "5"}]


@pytest.fixture(scope="session")
def registered():
    import gem_ts_skyrl

    return gem_ts_skyrl.register_envs([GAME, MATH])
