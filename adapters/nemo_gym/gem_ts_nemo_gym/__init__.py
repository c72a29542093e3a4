"""gem-ts envs as a NeMo Gym (pip ``nemo-gym`` 0.7) resources server.

``GemTsResourcesServer`` is a ``nemo_gym`` ``SimpleResourcesServer``: NeMo Gym's agents reach it at
``/seed_session``, ``/step`` (the tool) and ``/verify``. ``dataset_rows`` writes the JSONL rows its
agents take (the env's first observation as the prompt, the ``step`` tool offered).
"""
from .rows import dataset_rows, write_jsonl
from .server import (
    STEP_TOOL_NAME,
    GemTsResourcesServer,
    GemTsResourcesServerConfig,
    GemTsSeedSessionRequest,
    GemTsSeedSessionResponse,
    GemTsStepRequest,
    GemTsStepResponse,
    GemTsVerifyRequest,
    GemTsVerifyResponse,
    final_message_text,
    step_tool,
)

__all__ = [
    "STEP_TOOL_NAME",
    "GemTsResourcesServer",
    "GemTsResourcesServerConfig",
    "GemTsSeedSessionRequest",
    "GemTsSeedSessionResponse",
    "GemTsStepRequest",
    "GemTsStepResponse",
    "GemTsVerifyRequest",
    "GemTsVerifyResponse",
    "dataset_rows",
    "final_message_text",
    "step_tool",
    "write_jsonl",
]
