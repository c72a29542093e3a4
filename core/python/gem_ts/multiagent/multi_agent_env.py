"""The base class of a multi-agent env written in Python (PettingZoo-style dicts keyed by agent id).

A subclass sets ``possible_agents`` (and optionally ``agent_selector``) and implements ``observe`` and
``_process_actions``; the base class validates who may act, keeps cumulative rewards, removes agents
whose episode ended, passes the turn, and offers a shared message board.
"""

from __future__ import annotations

import abc
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..core import Env
from .agent_selector import AgentSelector

AgentState = Tuple[str, float, bool, bool, Dict[str, Any]]
StepDicts = Tuple[Dict[str, str], Dict[str, float], Dict[str, bool], Dict[str, bool], Dict[str, Dict[str, Any]]]


class MultiAgentEnv(Env):
    def __init__(self) -> None:
        super().__init__()
        self.possible_agents: List[str] = []
        self.agents: List[str] = []
        self.terminations: Dict[str, bool] = {}
        self.truncations: Dict[str, bool] = {}
        self.rewards: Dict[str, float] = {}
        self.infos: Dict[str, Dict[str, Any]] = {}
        self._cumulative_rewards: Dict[str, float] = {}
        self.agent_selector: Optional[AgentSelector] = None
        self.shared_memory: List[Dict[str, str]] = []
        self.global_context = ""
        self.np_random: np.random.Generator = np.random.default_rng()

    # ── turn taking ────────────────────────────────────────────────────────────────────────────────
    def _active_agents(self) -> List[str]:
        return self.agent_selector.get_active_agents() if self.agent_selector else list(self.agents)

    def step(self, actions: Dict[str, str]) -> StepDicts:  # type: ignore[override]
        if not isinstance(actions, dict):
            raise ValueError(f"Actions must be a dict keyed by agent id, got {type(actions).__name__}")
        self._validate_actions(actions, self._active_agents())
        observations, rewards, terminations, truncations, infos = self._process_actions(actions)
        for agent in self.agents:
            if agent in rewards:
                self._cumulative_rewards[agent] = self._cumulative_rewards.get(agent, 0.0) + rewards[agent]
        self._remove_dead_agents()
        if self.agent_selector:
            self.agent_selector.next()
        return observations, rewards, terminations, truncations, infos

    def _validate_actions(self, actions: Dict[str, str], active_agents: List[str]) -> None:
        for agent in active_agents:
            ended = self.terminations.get(agent, True) or self.truncations.get(agent, True)
            if not ended and agent not in actions:
                raise ValueError(f"Missing action for active agent {agent}")
        for agent in actions:
            if agent not in active_agents:
                raise ValueError(f"Agent {agent} provided action but is not active")

    @abc.abstractmethod
    def _process_actions(self, actions: Dict[str, str]) -> StepDicts:
        """Applies one action per acting agent: ``(observations, rewards, terminations, truncations, infos)``."""

    @abc.abstractmethod
    def observe(self, agent: str) -> str:
        """What ``agent`` sees now."""

    def reset(self, seed: Optional[int] = None, **kwargs: Any) -> Tuple[Dict[str, str], Dict[str, Any]]:
        # GEM 0.1.0 crashes on reset(seed=...) (it calls a helper it never defines); here the seed seeds
        # ``self.np_random``, the generator subclasses draw from.
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self.agents = list(self.possible_agents)
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.rewards = {a: 0.0 for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.shared_memory = []
        self.global_context = ""
        if self.agent_selector:
            self.agent_selector.reinit(self.agents)
        return {a: self.observe(a) for a in self.agents}, {a: {} for a in self.agents}

    # ── per-agent state ────────────────────────────────────────────────────────────────────────────
    def get_state(self, agent: str) -> AgentState:
        if agent not in self.agents:
            raise ValueError(f"Agent {agent} not in environment")
        return (
            self.observe(agent),
            self._cumulative_rewards.get(agent, 0.0),
            self.terminations.get(agent, False),
            self.truncations.get(agent, False),
            self.infos.get(agent, {}),
        )

    def get_active_states(self) -> Dict[str, AgentState]:
        return {a: self.get_state(a) for a in self._active_agents() if a in self.agents}

    def add_agent(self, agent_id: str) -> None:
        if agent_id in self.agents:
            return
        self.agents.append(agent_id)
        self.terminations[agent_id] = False
        self.truncations[agent_id] = False
        self.rewards[agent_id] = 0.0
        self.infos[agent_id] = {}
        self._cumulative_rewards[agent_id] = 0.0
        if self.agent_selector:
            self.agent_selector.add_agent(agent_id)

    def remove_agent(self, agent_id: str) -> None:
        if agent_id not in self.agents:
            return
        self.agents.remove(agent_id)
        for table in (self.terminations, self.truncations, self.rewards, self.infos, self._cumulative_rewards):
            table.pop(agent_id, None)
        if self.agent_selector:
            self.agent_selector.remove_agent(agent_id)

    def _remove_dead_agents(self) -> None:
        for agent in [a for a in self.agents if self.terminations.get(a, False) or self.truncations.get(a, False)]:
            self.remove_agent(agent)

    # ── messages ───────────────────────────────────────────────────────────────────────────────────
    def send_message(self, from_agent: str, to_agent: str, message: str) -> None:
        if from_agent not in self.agents:
            raise ValueError(f"Sender {from_agent} not in environment")
        if to_agent not in self.agents:
            raise ValueError(f"Receiver {to_agent} not in environment")
        self.shared_memory.append({"from": from_agent, "to": to_agent, "message": message})

    def broadcast_message(self, from_agent: str, message: str) -> None:
        if from_agent not in self.agents:
            raise ValueError(f"Sender {from_agent} not in environment")
        for agent in self.agents:
            if agent != from_agent:
                self.shared_memory.append({"from": from_agent, "to": agent, "message": message})
