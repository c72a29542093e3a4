"""A Python MultiAgentEnv registered and served like any Python env (issue 30): played through the
server from the acting agent's view, per-agent rewards and end flags in info, GEM's dict step as JSON."""

import json

import pytest

import gem_ts as gem
from gem_ts.multiagent import AgentSelector, MultiAgentEnv


class RaceToFive(MultiAgentEnv):
    """Agents take turns adding 1 or 2 to a running total; whoever reaches ``target`` wins (+1) and the
    others lose (-1); a move that is not 1 or 2 is refused (ValueError), as a GEM subclass would."""

    def __init__(self, target=5):
        super().__init__()
        self.possible_agents = ["alice", "bob"]
        self.agent_selector = AgentSelector(self.possible_agents, mode="sequential")
        self.target, self.total = target, 0

    def observe(self, agent):
        return f"{agent}: total is {self.total} of {self.target}"

    def reset(self, seed=None, **kwargs):
        self.total = 0
        return super().reset(seed=seed, **kwargs)

    def _process_actions(self, actions):
        (agent, action), = actions.items()
        if action not in ("1", "2"):
            raise ValueError(f"{agent} must add 1 or 2, not {action!r}")
        self.total += int(action)
        won = self.total >= self.target
        rewards = {a: (1.0 if a == agent else -1.0) if won else 0.0 for a in self.agents}
        for a in self.agents:
            self.terminations[a] = won
        obs = {a: self.observe(a) for a in self.agents}
        return obs, rewards, dict(self.terminations), dict(self.truncations), {a: {"total": self.total} for a in self.agents}


class Duel(MultiAgentEnv):
    """One simultaneous round (parallel mode): the higher number wins."""

    def __init__(self):
        super().__init__()
        self.possible_agents = ["x", "y"]
        self.agent_selector = AgentSelector(self.possible_agents, mode="parallel")

    def observe(self, agent):
        return f"{agent}: pick a number"

    def _process_actions(self, actions):
        hi = max(actions, key=lambda a: int(actions[a]))
        rewards = {a: 1.0 if a == hi else 0.0 for a in actions}
        for a in actions:
            self.terminations[a] = True
        return {a: f"{a} done" for a in actions}, rewards, dict(self.terminations), dict(self.truncations), {a: {} for a in actions}


@pytest.fixture(scope="module")
def registered(client):
    gem.register("py:RaceToFive-v0", RaceToFive)
    gem.register("py:Duel-v0", Duel)


def test_sequential_game_played_through_the_server(registered) -> None:
    env = gem.make("py:RaceToFive-v0")
    obs, info = env.reset(seed=3)
    assert obs == "alice: total is 0 of 5" and info["player"] == "alice" and info["players"] == ["alice", "bob"]
    obs, reward, terminated, truncated, info = env.step("2")
    assert (obs, reward, terminated, info["actor"], info["player"]) == ("bob: total is 2 of 5", 0.0, False, "alice", "bob")
    assert info["infos"]["bob"] == {"total": 2}
    env.step("1")  # bob: 3
    obs, reward, terminated, truncated, info = env.step("2")  # alice reaches 5
    assert terminated and not truncated and reward == 1.0 and info["actor"] == "alice" and "player" not in info
    assert info["rewards"] == {"alice": 1.0, "bob": -1.0} and info["returns"] == {"alice": 1.0, "bob": -1.0}
    assert info["terminations"] == {"alice": True, "bob": True} and obs == "alice: total is 5 of 5"
    assert env.agents == []  # the MultiAgentEnv's own attribute, read over the wire
    obs, info = env.reset()
    assert obs.startswith("alice: total is 0") and env.agents == ["alice", "bob"]
    env.close()


def test_bad_action_and_unknown_agent_are_clear_errors(registered) -> None:
    env = gem.make("py:RaceToFive-v0")
    env.reset()
    with pytest.raises(gem.GemError, match="alice must add 1 or 2, not '7'") as bad:
        env.step("7")
    assert isinstance(bad.value, gem.InvalidActionBatchError) and bad.value.code == "INVALID_ACTION_BATCH"
    env.reset()  # a step that raised ends the episode on the server, as for any env
    with pytest.raises(gem.GemError, match="Unknown agent 'carol'; the agents are alice, bob") as unknown:
        env.step(json.dumps({"carol": "1"}))
    assert unknown.value.code == "INVALID_ACTION_BATCH"
    env.reset()
    with pytest.raises(gem.GemError, match="Agent 'bob' may not act now; waiting for: alice"):
        env.step(json.dumps({"bob": "1"}))
    env.reset()
    # GEM's dict step, by the agent whose turn it is
    obs, _, _, _, info = env.step(json.dumps({"alice": "1"}))
    assert info["actor"] == "alice" and obs == "bob: total is 1 of 5"
    env.close()


def test_parallel_actions_wait_for_every_active_agent(registered) -> None:
    env = gem.make("py:Duel-v0")
    obs, info = env.reset()
    assert obs == "x: pick a number" and info["player"] == "x"
    obs, reward, terminated, _, info = env.step("3")
    assert (obs, reward, terminated, info["pending"], info["player"]) == ("y: pick a number", 0.0, False, ["x"], "y")
    obs, reward, terminated, _, info = env.step("9")
    assert terminated and reward == 1.0 and info["rewards"] == {"x": 0.0, "y": 1.0} and obs == "y done"
    env.close()


def test_served_in_a_vector_env_with_autoreset(registered) -> None:
    envs = gem.make_vec("py:Duel-v0", num_envs=2, seed=0)
    envs.reset()
    envs.step(["1", "2"])
    obs, rewards, terminated, _, _ = envs.step(["5", "0"])
    # the reward is the acting agent's (y): y's 5 beats x's 1 in env 0, y's 0 loses to x's 2 in env 1
    assert terminated.tolist() == [True, True] and rewards.tolist() == [1.0, 0.0]
    assert obs == ["x: pick a number", "x: pick a number"]  # same_step autoreset started round two
    envs.close()
