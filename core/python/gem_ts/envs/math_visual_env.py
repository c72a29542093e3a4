"""GEM's ``gem.envs.math_visual_env``: math problems with images (``info['images']`` here)."""

from ._served import DatasetEnvClass


class MathVisualEnv(DatasetEnvClass):
    ENV_ID = "math:Geometry3K"
    GEM_PARAMS = (("dataset_name", ""), ("split", None), ("dataset", None), ("question_key", "problem"),
                  ("answer_key", "answer"), ("image_key", "images"), ("seed", 0), ("use_mp", True))  # fmt: skip


__all__ = ["MathVisualEnv"]
