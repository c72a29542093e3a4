"""A Python :class:`MultiAgentEnv` served as a plain env, seen from the agent whose turn it is.

The wire carries one string action per step and one observation back, so a registered multi-agent
env is played the way the server's own turn-based games (``multi:*``) are: ``step(text)`` is the move
of ``info["player"]``, the observation is what the next agent to act sees, the scalar reward is what
the step gave the agent who acted (``info["actor"]``), and ``info`` holds every agent's reward for the
step (``rewards``), the running totals (``returns``) and per-agent ``terminations``/``truncations``.

GEM's dict step travels as a JSON object of strings keyed by agent id (``json.dumps({"alice": "..."})``).
In parallel mode a string action is buffered until every active agent has acted (in their order); the
env steps once, on the last one. The episode ends when no agent is left.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from ..errors import GemError
from .multi_agent_env import MultiAgentEnv


def _dict_action(action: str) -> Optional[Dict[str, str]]:
    """GEM's ``{agent: action}`` when ``action`` is a JSON object of strings, else None (a plain move)."""
    if not action.lstrip().startswith("{"):
        return None
    try:
        parsed = json.loads(action)
    except ValueError:
        return None
    if isinstance(parsed, dict) and parsed and all(isinstance(v, str) for v in parsed.values()):
        return parsed
    return None


class ServedMultiAgent:
    def __init__(self, env: MultiAgentEnv) -> None:
        self.env = env
        self._pending: Dict[str, str] = {}
        self._returns: Dict[str, float] = {}
        # GEM's MultiAgentEnv drops an ended agent's flags with the agent; the served view keeps them.
        self._terminations: Dict[str, bool] = {}
        self._truncations: Dict[str, bool] = {}

    # ── who may act ────────────────────────────────────────────────────────────────────────────────
    def _waiting(self) -> List[str]:
        """Active agents still to act this round, in the selector's order."""
        env = self.env
        active = [a for a in env._active_agents() if a in env.agents]
        return [a for a in active if not (env.terminations.get(a) or env.truncations.get(a)) and a not in self._pending]

    def _check(self, actions: Dict[str, str]) -> None:
        env, waiting = self.env, self._waiting()
        for agent in actions:
            if agent not in env.possible_agents:
                raise GemError("INVALID_ACTION_BATCH", f"Unknown agent '{agent}'; the agents are {', '.join(env.possible_agents)}.")
            if agent not in waiting:
                who = ", ".join(waiting) or "nobody (the episode is over; call reset())"
                raise GemError("INVALID_ACTION_BATCH", f"Agent '{agent}' may not act now; waiting for: {who}.")

    def _info(self, actors: List[str], rewards: Dict[str, float], step_infos: Dict[str, Any]) -> Dict[str, Any]:
        env = self.env
        info: Dict[str, Any] = {
            "players": list(env.possible_agents),
            "rewards": {a: float(rewards.get(a, 0.0)) for a in env.possible_agents},
            "returns": dict(self._returns),
            "terminations": {a: self._terminations.get(a, False) for a in env.possible_agents},
            "truncations": {a: self._truncations.get(a, False) for a in env.possible_agents},
        }
        if step_infos:
            info["infos"] = {a: dict(v or {}) for a, v in step_infos.items()}
        if len(actors) == 1:
            info["actor"] = actors[0]
        if actors:
            info["actors"] = actors
        waiting = self._waiting()
        if waiting:
            info["player"] = waiting[0]
        if self._pending:
            info["pending"] = sorted(self._pending)
        return info

    # ── the plain Env API the host serves ─────────────────────────────────────────────────────────────
    def reset(self, seed: Optional[int] = None, **kwargs: Any) -> Tuple[str, Dict[str, Any]]:
        observations, infos = self.env.reset(seed=seed, **kwargs)
        self._pending = {}
        self._returns = {a: 0.0 for a in self.env.possible_agents}
        self._terminations, self._truncations = {}, {}
        info = self._info([], {}, infos)
        player = info.get("player")
        return (str(observations.get(player, "")) if player else ""), info

    def step(self, action: str) -> Tuple[str, float, bool, bool, Dict[str, Any]]:
        actions = _dict_action(action)
        if actions is None:
            waiting = self._waiting()
            if not waiting:
                raise GemError("RESET_NEEDED", "No agent is left to act: the episode is over; call reset().")
            actions = {waiting[0]: action}
        self._check(actions)
        self._pending.update(actions)
        actors = list(actions)
        if self._waiting():  # parallel mode: others still to act this round
            return self.env.observe(self._waiting()[0]), 0.0, False, False, self._info(actors, {}, {})
        batch, self._pending = self._pending, {}
        try:
            observations, rewards, terminations, truncations, infos = self.env.step(batch)
        except ValueError as e:  # the env refused the move (GEM's validation, a subclass's own check)
            raise GemError("INVALID_ACTION_BATCH", f"{type(self.env).__name__} refused {batch}: {e}") from e
        for agent, r in rewards.items():
            self._returns[agent] = self._returns.get(agent, 0.0) + float(r)
        self._terminations.update({a: bool(v) for a, v in terminations.items()})
        self._truncations.update({a: bool(v) for a, v in truncations.items()})
        info = self._info(actors, rewards, infos)
        over = not self.env.agents
        player = info.get("player")
        if player is not None:
            observation = self.env.observe(player)
        else:
            observation = str(observations.get(actors[-1], "")) if observations else ""
        truncated = over and any(truncations.values())
        terminated = over and (any(terminations.values()) or not truncated)
        return observation, float(rewards.get(actors[-1], 0.0)), terminated, truncated, info

    def close(self) -> None:
        close = getattr(self.env, "close", None)
        if callable(close):
            close()
