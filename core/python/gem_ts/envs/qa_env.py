"""GEM's ``gem.envs.qa_env``: ``QaEnv(dataset=ds, question_key=..., answer_key=...)``."""

from ._served import DatasetEnvClass


class QaEnv(DatasetEnvClass):
    """Question answering graded by exact match (``<answer>`` tags, or ``\\boxed{}`` with extract_boxed)."""

    ENV_ID = "qa:NaturalQuestions"
    GEM_PARAMS = (("dataset_name", ""), ("split", None), ("dataset", None), ("question_key", "question"),
                  ("answer_key", "answer"), ("seed", 0), ("extract_boxed", False), ("load_from_cache_file", True))  # fmt: skip


__all__ = ["QaEnv"]
