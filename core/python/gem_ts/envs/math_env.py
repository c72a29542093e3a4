"""GEM's ``gem.envs.math_env``: ``MathEnv(dataset=ds, question_key=..., answer_key=...)``."""

from ._served import DatasetEnvClass


class MathEnv(DatasetEnvClass):
    """A single-turn math env over a dataset (a Hugging Face Dataset, rows, a file or a registered name)."""

    ENV_ID = "math:Math12K"
    GEM_PARAMS = (("dataset_name", ""), ("split", None), ("dataset", None), ("question_key", "problem"),
                  ("answer_key", "answer"), ("seed", 0), ("use_mp", True))  # fmt: skip


__all__ = ["MathEnv"]
