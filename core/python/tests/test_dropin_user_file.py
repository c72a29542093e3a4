"""A GEM user's test file, written against GEM's public API: only its import lines name gem_ts.

It runs as is on gem_ts; with ``gem_ts`` replaced by ``gem`` it runs on GEM (gem-llm 0.1.0), which
``test_dropin_on_gem.py`` does in GEM's own venv when that is present. Facts it checks hold on both:
no observation text is compared (ours are in our own words), only what GEM's API promises.
"""

import gem_ts as gem
from gem_ts.envs.game_env.guess_the_number import GuessTheNumberEnv
from gem_ts.envs.math_env import MathEnv
from gem_ts.multiagent import AgentSelector, MultiAgentEnv
from gem_ts.tools.python_code_tool import PythonCodeTool
from gem_ts.tools.tool_env_wrapper import ToolEnvWrapper
from gem_ts.utils.constants import TERMINAL_STATE
from gem_ts.utils.parsing import extract_last_boxed_answer
from gem_ts.wrappers.wrapper_factory import WRAPPER_FACTORY

try:  # GEM's MathEnv takes a Hugging Face Dataset; gem_ts takes one too, or plain rows without `datasets`
    from datasets import Dataset
except ImportError:  # pragma: no cover - depends on the venv
    Dataset = None

ROWS = [{"problem": "What is 6 times 7?", "answer": "42"}, {"problem": "What is 2 plus 2?", "answer": "4"}]


def math_dataset():
    return Dataset.from_list(ROWS) if Dataset is not None else ROWS


def test_env_attributes_read_and_write():
    env = gem.make("game:GuessTheNumber-v0-easy")
    env.reset(seed=0)
    assert env.max_turns == 4
    env.max_turns = 2  # the turn limit of the running episode
    first = env.step("\\boxed{1}")
    second = env.step("\\boxed{2}")
    assert first[3] is False and (second[2] or second[3])


def test_math_env_class_and_answer_override():
    env = MathEnv(dataset=math_dataset(), question_key="problem", answer_key="answer", use_mp=False, eval=True)
    obs, info = env.reset(idx=0)
    assert obs == "What is 6 times 7?" and env.answer == "42"
    env.answer = "17"
    obs, reward, terminated, truncated, info = env.step("so it is \\boxed{17}")
    assert (obs, reward, terminated, truncated) == (TERMINAL_STATE, 1.0, True, True)
    assert extract_last_boxed_answer("a \\boxed{1} then \\boxed{17}") == "17"


def test_game_class_with_gem_arguments():
    env = GuessTheNumberEnv(min_number=1, max_number=5, max_turns=3)
    obs, _ = env.reset()
    assert isinstance(obs, str) and env.max_turns == 3 and env.min_number == 1
    rewards = []
    for guess in range(1, 4):
        _, reward, terminated, truncated, _ = env.step(f"\\boxed{{{guess}}}")
        rewards.append(reward)
        if terminated or truncated:
            break
    assert rewards and all(isinstance(r, float) for r in rewards)


def test_tool_env_wrapper_with_python_code_tool():
    env = MathEnv(dataset=math_dataset(), use_mp=False, eval=True)
    env = ToolEnvWrapper(env, tools=[PythonCodeTool(timeout=5)], tool_reward=0.1, tool_success_reward=0.2, max_tool_uses=2)
    assert env.max_tool_uses == 2
    env.reset()  # an eval env starts at row 0 (GEM's ToolEnvWrapper.reset takes no idx)
    obs, reward, terminated, truncated, info = env.step("Let me compute.\n```python\nprint(6 * 7)\n```")
    assert "42" in obs and not terminated and abs(reward - 0.3) < 1e-9
    assert info["tool_use_counter"] == 1 and info["tool_success_counter"] == 1
    obs, reward, terminated, truncated, info = env.step("The answer is \\boxed{42}.")
    assert terminated and reward == 1.0


def test_wrapper_factory_concat_keeps_history():
    env = WRAPPER_FACTORY["concat"](gem.make("game:GuessTheNumber-v0-easy"))
    first, _ = env.reset(seed=1)
    obs, *_ = env.step("\\boxed{3}")
    # the history opens with the game's instructions and grows with each turn
    assert obs.startswith(first.splitlines()[0]) and len(obs) > len(first)
    tracked = WRAPPER_FACTORY["episode_tracking"](gem.make("game:GuessTheNumber-v0-easy"))
    tracked.reset(seed=1)
    assert isinstance(tracked.step("\\boxed{3}")[1], float)


def test_vector_env_envs_attributes():
    vec = gem.make_vec(["game:GuessTheNumber-v0-easy", "game:GuessTheNumber-v0-hard"])
    vec.reset(seed=0)
    assert [e.max_turns for e in vec.envs] == [4, 7]
    observations, rewards, terminated, truncated, infos = vec.step(["\\boxed{1}", "\\boxed{2}"])
    assert len(observations) == 2 and len(rewards) == 2


class Relay(MultiAgentEnv):
    """Two agents take turns adding a number; the game ends when the total reaches the target."""

    def __init__(self, target=3):
        super().__init__()
        self.possible_agents = ["alice", "bob"]
        self.agent_selector = AgentSelector(self.possible_agents, mode="sequential")
        self.target = target
        self.total = 0

    def observe(self, agent):
        return f"{agent}: the total is {self.total}"

    def _process_actions(self, actions):
        obs, rewards, terms, truncs, infos = {}, {}, {}, {}, {}
        for agent, action in actions.items():
            self.total += int(action)
        done = self.total >= self.target
        for agent in self.agents:
            obs[agent] = self.observe(agent)
            rewards[agent] = 1.0 if done and agent in actions else 0.0
            terms[agent], truncs[agent], infos[agent] = done, False, {}
            self.terminations[agent] = done  # GEM's step removes the agents marked here
        return obs, rewards, terms, truncs, infos


def test_python_multi_agent_env():
    env = Relay()
    obs, infos = env.reset()
    assert set(obs) == {"alice", "bob"}
    turns = []
    while env.agents:
        (agent,) = env.agent_selector.get_active_agents()
        turns.append(agent)
        obs, rewards, terms, truncs, infos = env.step({agent: "1"})
    assert turns == ["alice", "bob", "alice"] and env.total == 3
    assert rewards["alice"] == 1.0 and rewards["bob"] == 0.0
