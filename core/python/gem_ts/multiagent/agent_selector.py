"""Whose turn it is: one agent at a time in order ("sequential") or every agent at once ("parallel")."""

from __future__ import annotations

from typing import List, Optional

MODES = ("sequential", "parallel")


class AgentSelector:
    def __init__(self, agents: List[str], mode: str = "sequential") -> None:
        self.mode = mode
        self._agents: List[str] = list(agents)
        self._current_idx = 0
        self.selected: Optional[str] = self._agents[0] if self._agents else None

    def get_active_agents(self) -> List[str]:
        if self.mode == "sequential":
            return [self.selected] if self.selected else []
        if self.mode == "parallel":
            return list(self._agents)
        raise ValueError(f"Unknown mode: {self.mode!r} (expected one of {', '.join(MODES)})")

    def next(self) -> None:
        """Passes the turn on (sequential mode), wrapping around after the last agent."""
        if self.mode == "sequential" and self._agents:
            self._current_idx = (self._current_idx + 1) % len(self._agents)
            self.selected = self._agents[self._current_idx]

    def is_first(self) -> bool:
        return self._current_idx == 0

    def is_last(self) -> bool:
        return self._current_idx == len(self._agents) - 1

    def reinit(self, agents: List[str]) -> None:
        self._agents = list(agents)
        self._current_idx = 0
        self.selected = self._agents[0] if self._agents else None

    def add_agent(self, agent: str) -> None:
        if agent not in self._agents:
            self._agents.append(agent)

    def remove_agent(self, agent: str) -> None:
        """Removes ``agent``; the turn stays with the agent that held it, or passes to the one before the
        removed position when the removed agent held it."""
        if agent not in self._agents:
            return
        pos = self._agents.index(agent)
        self._agents.pop(pos)
        if not self._agents:
            self._current_idx, self.selected = 0, None
            return
        if pos <= self._current_idx:
            self._current_idx = max(0, self._current_idx - 1)
        self._current_idx %= len(self._agents)
        self.selected = self._agents[self._current_idx]
