"""Env attributes over the wire (get_attr/set_attr): GEM's ``env.answer = gt``, ``env.max_turns``,
``env.tests``, ``env.dataset``, and Gymnasium's ``VectorEnv.get_attr/set_attr`` / ``vec_env.envs[i]``."""

import pytest

import gem_ts as gem

ROWS = [{"problem": "1+1?", "answer": "2"}, {"problem": "2+2?", "answer": "4"}, {"problem": "3+3?", "answer": "6"}]


def test_math_answer_write_regrades(client):
    env = gem.make("math:Orz57K", dataset=ROWS)
    obs, _ = env.reset(idx=1)
    assert (obs, env.answer, env.question, env.first_obs) == ("2+2?", "4", "2+2?", "2+2?")
    env.answer = "17"
    assert env.answer == "17"
    assert env.step("\\boxed{17}")[1] == 1.0
    env.reset(idx=1)  # a reset brings the dataset's gold back
    assert env.answer == "4"
    assert env.step("\\boxed{17}")[1] == 0.0
    env.reset(idx=0)
    env.answer = ["x", 2]  # a list of golds: any counts
    assert env.step("\\boxed{2}")[1] == 1.0
    env.close()


def test_dataset_and_options_read(client):
    env = gem.make("math:Orz57K", dataset=ROWS)
    ds = env.dataset
    assert len(ds) == 3 and ds["answer"] == ["2", "4", "6"] and ds[0]["problem"] == "1+1?"
    assert ds.column_names == ["problem", "answer"]
    assert env.question_key == "problem" and env.answer_key == "answer"
    assert env.question is None  # nothing shown yet
    env.close()


def test_write_is_never_silently_dropped(client):
    env = gem.make("math:Orz57K", dataset=ROWS)
    with pytest.raises(gem.ResetNeededError):
        env.answer = "1"  # the gold belongs to an episode
    env.reset()
    with pytest.raises(AttributeError, match="read-only attribute 'question_key'"):
        env.question_key = "other"
    with pytest.raises(gem.InvalidAttributeError, match="answer"):
        env.answer = {"not": "an answer"}
    with pytest.raises(AttributeError) as err:
        env.not_an_attribute
    assert "answer (read/write)" in str(err.value) and "dataset (read-only)" in str(err.value)
    with pytest.raises(AttributeError):
        env.not_an_attribute = 3
    assert not hasattr(env, "nope")
    env.close()


def test_game_max_turns_applies_now(client):
    env = gem.make("game:GuessTheNumber-v0", min_number=1, max_number=1000)
    env.reset(seed=3)
    assert env.max_turns == 10 and env.min_number == 1
    env.max_turns = 2
    assert env.max_turns == 2
    assert env.step("\\boxed{1000}")[2:4] == (False, False)
    _, _, terminated, truncated, _ = env.step("\\boxed{999}")
    assert terminated and truncated  # the limit of the running episode changed, as in GEM
    env.reset(seed=3)
    assert env.max_turns == 2  # and stays for the next ones
    with pytest.raises(gem.InvalidAttributeError):
        env.max_turns = "five"
    env.close()


def test_client_side_fields_stay_local(client):
    env = gem.make("game:GuessTheNumber-v0")
    env.env_id = env.env_id  # the client's own fields are plain attributes
    env._mine = 1
    assert env._mine == 1
    with pytest.raises(AttributeError, match="max_turns"):
        env.my_note = "x"  # a new public name is the env's, which does not declare it
    env.close()


def test_code_tests_attribute_through_worker(client):
    env = gem.make("code:CodeContest", dataset=[{"problem": "echo", "tests": {"inputs": ["1\n"], "outputs": ["1\n"]}}])
    env.reset()
    assert env.tests == {"inputs": ["1\n"], "outputs": ["1\n"]}
    env.tests = {"inputs": ["5\n"], "outputs": ["10\n"]}
    assert env.step("```python\nprint(int(input()) * 2)\n```")[1] == 1.0
    env.close()


def test_vector_get_set_attr_and_envs(client):
    vec = gem.make_vec("game:GuessTheNumber-v0", num_envs=3)
    vec.reset(seed=0)
    assert vec.get_attr("max_turns") == (10, 10, 10)
    vec.envs[1].max_turns = 4
    assert vec.envs[1].max_turns == 4
    vec.set_attr("min_number", [1, 2, 3])
    assert vec.get_attr("min_number") == (1, 2, 3)
    vec.set_attr("max_turns", 7)
    assert vec.get_attr("max_turns", indices=[0, 2]) == (7, 7)
    with pytest.raises(ValueError, match="2 values for 3 envs"):
        vec.set_attr("max_turns", [1, 2])
    with pytest.raises(AttributeError, match="max_turns"):
        vec.envs[0].nope
    assert len(vec.envs) == 3 and vec.envs[2].env_id == "game:GuessTheNumber-v0"
    vec.close()


class Counter(gem.Env):
    """A Python env registered with gem_ts: its own attributes are what env.<name> reads and writes."""

    def __init__(self, start=0):
        self.count = start
        self.history = []
        self._secret = "x"

    def reset(self, seed=None, **kwargs):
        self.count = 0
        return "0", {}

    def step(self, action):
        self.count += int(action)
        self.history.append(int(action))
        return str(self.count), 0.0, self.count >= 10, False, {}


def test_python_registered_env_attributes(client):
    gem.register("test:attr-counter", Counter, start=3)
    env = gem.make("test:attr-counter")
    assert env.count == 3
    env.reset()
    env.step("4")
    assert (env.count, env.history) == (4, [4])
    env.count = 9
    assert env.step("1")[2] is True  # the write reached the Python object
    with pytest.raises(AttributeError, match="count, history"):
        env.missing
    with pytest.raises(AttributeError):
        env._secret
    vec = gem.make_vec("test:attr-counter", num_envs=2)
    assert vec.get_attr("count") == (3, 3)
