"""Constants GEM user code imports from ``gem.utils.constants``."""

from __future__ import annotations

from ..core import TERMINAL_STATE

#: What GEM's training examples send as the action when a generation was cut off; envs treat it as a
#: format error (it holds no answer).
INVALID_ACTION = "<｜INVALID_ACTION｜>"


class LanguageGameReward:
    """The reward scale every game uses (same numbers as GEM)."""

    success_reward: float = 1.0
    internal_step_reward: float = 0.0
    fail_reward: float = 0.0
    invalid_action_reward: float = 0.0
    format_error_reward: float = -0.1


__all__ = ["INVALID_ACTION", "LanguageGameReward", "TERMINAL_STATE"]
