"""GEM's ``gem.envs.code_env``: ``CodeEnv(dataset=ds, question_key=..., test_key=...)``."""

from ._served import DatasetEnvClass


class CodeEnv(DatasetEnvClass):
    """Programs graded against a problem's stdin/stdout tests, in gem-ts's sandbox."""

    ENV_ID = "code:CodeContest"
    GEM_PARAMS = (("dataset_name", ""), ("split", None), ("dataset", None), ("question_key", "problem"),
                  ("test_key", "tests"), ("seed", 0), ("max_workers", 5), ("max_tests", 12),
                  ("verbose", False), ("sandbox_type", "none"))  # fmt: skip


__all__ = ["CodeEnv"]
