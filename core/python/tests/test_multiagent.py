"""gem_ts.multiagent: GEM's Python multi-agent base classes, subclassed as GEM users do."""

import pytest

from gem_ts.envs.multiagent import AgentSelector as SelectorFromHeadPath
from gem_ts.envs.multiagent import MultiAgentEnv as EnvFromHeadPath
from gem_ts.multiagent import AgentSelector, MultiAgentEnv


class Relay(MultiAgentEnv):
    """Agents take turns adding their number; an agent that says 'stop' leaves the game."""

    def __init__(self, agents=("a", "b", "c"), mode="sequential"):
        super().__init__()
        self.possible_agents = list(agents)
        self.agent_selector = AgentSelector(self.possible_agents, mode=mode)
        self.total = 0

    def observe(self, agent):
        return f"{agent} sees {self.total}"

    def _process_actions(self, actions):
        obs, rew, term, trunc, info = {}, {}, {}, {}, {}
        for agent, action in actions.items():
            if action == "stop":
                self.terminations[agent] = True
            else:
                self.total += int(action)
            obs[agent], rew[agent] = self.observe(agent), float(action != "stop")
            term[agent], trunc[agent], info[agent] = self.terminations[agent], False, {}
        return obs, rew, term, trunc, info


def test_head_path_is_the_same_module():
    assert SelectorFromHeadPath is AgentSelector and EnvFromHeadPath is MultiAgentEnv


def test_sequential_turns_wrap_around():
    env = Relay()
    obs, infos = env.reset()
    assert obs == {"a": "a sees 0", "b": "b sees 0", "c": "c sees 0"} and infos == {"a": {}, "b": {}, "c": {}}
    order = []
    for _ in range(4):
        (agent,) = env.agent_selector.get_active_agents()
        order.append(agent)
        env.step({agent: "1"})
    assert order == ["a", "b", "c", "a"]
    assert env.total == 4 and env._cumulative_rewards == {"a": 2.0, "b": 1.0, "c": 1.0}


def test_parallel_mode_everyone_acts():
    env = Relay(mode="parallel")
    env.reset()
    env.step({"a": "1", "b": "2", "c": "3"})
    assert env.total == 6
    assert set(env.get_active_states()) == {"a", "b", "c"}


def test_action_validation():
    env = Relay()
    env.reset()
    with pytest.raises(ValueError, match="Missing action for active agent a"):
        env.step({})
    with pytest.raises(ValueError, match="Agent b provided action but is not active"):
        env.step({"a": "1", "b": "1"})
    with pytest.raises(ValueError, match="must be a dict"):
        env.step(["1"])


def test_dead_agents_are_removed_and_the_turn_moves_on():
    env = Relay()
    env.reset()
    env.step({"a": "stop"})
    assert env.agents == ["b", "c"]
    # As in GEM: removing the acting agent hands the turn to its successor, then step() passes it on
    # once more, so "b" is skipped this round.
    assert env.agent_selector.get_active_agents() == ["c"]
    with pytest.raises(ValueError, match="not in environment"):
        env.get_state("a")
    observation, cumulative, terminated, truncated, info = env.get_state("b")
    assert (observation, cumulative, terminated, truncated, info) == ("b sees 0", 0.0, False, False, {})


def test_add_and_remove_agents():
    env = Relay()
    env.reset()
    env.add_agent("d")
    env.add_agent("d")
    assert env.agents == ["a", "b", "c", "d"] and env.rewards["d"] == 0.0
    env.remove_agent("b")
    env.remove_agent("zzz")
    assert env.agents == ["a", "c", "d"] and "b" not in env.terminations


def test_selector_remove_keeps_the_turn_sensible():
    sel = AgentSelector(["a", "b", "c"])
    sel.next()  # b's turn
    sel.remove_agent("a")  # before the current one: b keeps the turn
    assert sel.selected == "b" and sel.is_first()
    sel.remove_agent("b")  # the current one leaves
    assert sel.selected == "c"
    sel.remove_agent("c")
    assert sel.selected is None and sel.get_active_agents() == []
    with pytest.raises(ValueError, match="Unknown mode"):
        AgentSelector(["a"], mode="random").get_active_agents()


def test_selector_first_last_reinit():
    sel = AgentSelector(["x", "y"])
    assert sel.is_first() and not sel.is_last()
    sel.next()
    assert sel.is_last()
    sel.reinit(["p"])
    assert sel.selected == "p" and sel.is_first() and sel.is_last()


def test_messages():
    env = Relay()
    env.reset()
    env.send_message("a", "b", "hi")
    env.broadcast_message("c", "all")
    assert env.shared_memory == [
        {"from": "a", "to": "b", "message": "hi"},
        {"from": "c", "to": "a", "message": "all"},
        {"from": "c", "to": "b", "message": "all"},
    ]
    with pytest.raises(ValueError, match="Sender"):
        env.send_message("zz", "a", "x")
    with pytest.raises(ValueError, match="Receiver"):
        env.send_message("a", "zz", "x")
    env.reset()
    assert env.shared_memory == [] and env.agents == ["a", "b", "c"]


def test_reset_with_seed_works_and_is_reproducible():
    class Dice(Relay):
        def observe(self, agent):
            return str(int(self.np_random.integers(0, 1000)))

    first, _ = Dice().reset(seed=7)
    second, _ = Dice().reset(seed=7)
    assert first == second
