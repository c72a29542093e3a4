"""GEM's Python API through gem_ts: the calls and return types a GEM user's script relies on."""

from __future__ import annotations

import numpy as np
import pytest

import gem_ts as gem
from gem_ts.wrappers.wrapper_factory import get_wrapper_fns

EASY = "game:GuessTheNumber-v0-easy"


def play_to_end(env, guesses):
    for g in guesses:
        obs, reward, terminated, truncated, info = env.step(f"\\boxed{{{g}}}")
        if terminated or truncated:
            return reward
    return None


def test_make_reset_step_return_gem_tuples(client) -> None:
    env = gem.make(EASY)
    assert isinstance(env, gem.Env)
    obs, info = env.reset(seed=42)
    assert isinstance(obs, str) and obs.startswith("You are playing Guess The Number")
    assert info == {"suffix": "Enter your next guess."}
    obs, reward, terminated, truncated, info = env.step("\\boxed{5}")
    assert type(obs) is str and type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert isinstance(info, dict)
    assert str(env) == f"<{EASY}>"
    env.close()


def test_same_seed_same_episode_and_sample_random_action(client) -> None:
    env = gem.make(EASY)
    first = [env.reset(seed=7)[0]] + [env.step("\\boxed{3}")[0] for _ in range(2)]
    second = [env.reset(seed=7)[0]] + [env.step("\\boxed{3}")[0] for _ in range(2)]
    assert first == second
    assert env.sample_random_action().startswith("\\boxed{")
    env.close()


def test_a_format_error_ends_the_episode_with_minus_point_one(client) -> None:
    env = gem.make(EASY, strict_reset=True)
    env.reset(seed=1)
    _, reward, terminated, _, _ = env.step("no box at all")
    assert reward == pytest.approx(-0.1) and terminated
    with pytest.raises(gem.GemError) as e:  # strict: the ended episode refuses a step (test_dropin_past_end: the default)
        env.step("\\boxed{1}")
    assert e.value.code == "RESET_NEEDED"
    env.close()


def test_make_kwargs_are_env_options(client) -> None:
    env = gem.make("game:GuessTheNumber-v0", max_turns=2, min_number=1, max_number=3)
    assert "2 turns" in env.reset(seed=0)[0]
    # env.spec is what the env was made with (resolved options), not the registered preset …
    spec = env.spec
    assert spec["id"] == "game:GuessTheNumber-v0"
    assert {k: spec["options"][k] for k in ("max_turns", "min_number", "max_number")} == {"max_turns": 2, "min_number": 1, "max_number": 3}
    env.close()
    # … so making it from its spec gives the same env.
    again = gem.make(spec["id"], **spec["options"])
    assert again.spec["options"] == spec["options"] and "2 turns" in again.reset(seed=0)[0]
    again.close()


def test_unknown_env_and_bad_options_raise_value_errors_with_codes(client) -> None:
    with pytest.raises(ValueError) as e:
        gem.make("game:GuessTheNumbr-v0-easy")
    assert isinstance(e.value, gem.GemError) and e.value.code == "UNKNOWN_ENV"
    assert "game:GuessTheNumber-v0-easy" in str(e.value)
    with pytest.raises(gem.GemError) as e:
        gem.make(EASY, max_turns="many")
    assert e.value.code == "INVALID_OPTIONS" and "max_turns" in e.value.message


def test_make_vec_heterogeneous_with_gem_wrappers(client) -> None:
    ids = [EASY, EASY, "game:GuessTheNumber-v0-hard"]
    envs = gem.make_vec(ids, wrappers=get_wrapper_fns("concat,episode_tracking"), seed=3)
    assert isinstance(envs, gem.SyncVectorEnv) and envs.num_envs == 3 and envs.env_ids == ids
    assert envs.autoreset_mode == "same_step"
    obs, infos = envs.reset(seed=0)
    assert len(obs) == 3 and infos[2]["step_counter"] == 0
    assert "between 1 and 50" in obs[2]
    obs, rewards, terminated, truncated, infos = envs.step(["\\boxed{5}"] * 3)
    assert isinstance(rewards, np.ndarray) and rewards.dtype == np.float64 and rewards.shape == (3,)
    assert terminated.dtype == bool and truncated.dtype == bool
    assert infos[0]["step_counter"] == 1
    assert "\\boxed{5}" not in obs[0] and obs[0].count("Enter your next guess.") == 1  # concat keeps the history
    envs.close()


def test_dict_actions_step_a_subset_in_key_order(client) -> None:
    envs = gem.make_vec(EASY, num_envs=4)
    envs.reset(seed=1)
    obs, rewards, terminated, truncated, infos = envs.step({3: "\\boxed{2}", 1: "bad"})
    assert len(obs) == 2 and rewards.shape == (2,)
    assert rewards[1] == pytest.approx(-0.1) and terminated[1]
    envs.close()


def test_same_step_autoreset_returns_the_new_episode(client) -> None:
    envs = gem.make_vec(EASY, num_envs=2)
    envs.reset(seed=5)
    obs, rewards, terminated, _, infos = envs.step(["nope", "nope"])
    assert terminated.all() and np.allclose(rewards, -0.1)
    assert all(o.startswith("You are playing") for o in obs)  # already reset
    assert "final_obs" in infos[0]
    envs.close()


def test_autoreset_modes_and_vec_kwargs(client) -> None:
    envs = gem.make_vec([EASY, EASY], vec_kwargs=[{"max_turns": 2}, {"max_turns": 3}], autoreset_mode="next_step")
    assert envs.autoreset_mode == "next_step"
    obs, _ = envs.reset(seed=0)
    assert "2 turns" in obs[0] and "3 turns" in obs[1]
    envs.step(["x", "x"])
    obs, rewards, terminated, truncated, _ = envs.step(["ignored", "ignored"])
    assert not terminated.any() and np.allclose(rewards, 0) and obs[0].startswith("You are playing")
    envs.close()
    with pytest.raises(gem.GemError) as e:
        gem.make_vec(EASY, num_envs=2, autoreset_mode="sometimes")
    assert e.value.code == "INVALID_REQUEST"


def test_make_vec_seed_rule_env_i_gets_seed_plus_i(client) -> None:
    a = gem.make_vec(EASY, num_envs=3, seed=10)
    b = gem.make_vec([EASY], seed=11)
    # The env's own seed drives its action sampler; env 1 of a and env 0 of b share seed 11.
    assert a.sample_random_actions([1]) == b.sample_random_actions([0])
    a.close()
    b.close()


def test_per_env_reset_kwargs(client) -> None:
    envs = gem.make_vec(EASY, num_envs=2)
    with pytest.raises(ValueError, match="3 seeds for 2 envs"):
        envs.reset(seed=[1, 2, 3])
    obs, _ = envs.reset(seed=[4, 4])
    assert obs[0] == obs[1]
    envs.close()


def test_large_batches_travel_as_arrow(client) -> None:
    n = client.inline_max_rows * 4
    envs = gem.make_vec(EASY, num_envs=n)
    obs, infos = envs.reset(seed=0)
    assert len(obs) == n and len(infos) == n
    obs, rewards, terminated, truncated, infos = envs.step(["\\boxed{5}"] * n)
    assert rewards.shape == (n,) and len(infos) == n and infos[0] == {"suffix": "Enter your next guess."}
    infos[0]["mine"] = 1
    assert "mine" not in infos[1]  # each row gets its own dict
    envs.close()


def test_wrapper_fns_apply_to_a_single_env(client) -> None:
    env = gem.make(EASY)
    for fn in get_wrapper_fns("concat_with_action"):
        env = fn(env)
    env.reset(seed=1)
    obs, *_ = env.step("\\boxed{4}")
    assert "\\boxed{4}" in obs
    assert str(env) == f"<concat_with_action<{EASY}>>"
    env.close()


def test_concat_chat_takes_the_tokenizers_chat_template(client) -> None:
    class Tok:
        chat_template = "{% for m in messages %}[{{ m.role }}]{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}"
        eos_token = "</s>"

    envs = gem.make_vec(EASY, num_envs=1, wrappers=get_wrapper_fns("concat_chat", tokenizer=Tok()))
    obs, _ = envs.reset(seed=0)
    obs, *_ = envs.step(["\\boxed{5}"])
    assert obs[0].startswith("[user]You are playing") and "[assistant]\\boxed{5}" in obs[0] and obs[0].endswith("[assistant]")
    envs.close()
    with pytest.raises(ValueError):
        get_wrapper_fns("concat_chat")


def test_python_wrappers_are_refused_with_a_hint(client) -> None:
    with pytest.raises(TypeError, match="given by name"):
        gem.make_vec(EASY, wrappers=[lambda env: env])


def test_print_envs(client, capsys) -> None:
    gem.print_envs("GuessTheNumber")
    out = capsys.readouterr().out
    assert out.startswith("Detailed Registered Environments:") and EASY in out and "max_turns" in out


class EchoEnv(gem.Env):
    """Repeats the action; ends after `turns` steps."""

    def __init__(self, turns: int = 2, seed: int = 0):
        self.turns, self.seed, self.t = turns, seed, 0

    def reset(self, seed=None, **kwargs):
        self.t = 0
        return f"start seed={seed} own={self.seed}", {"kwargs": kwargs}

    def step(self, action):
        self.t += 1
        done = self.t >= self.turns
        return f"echo {action}", np.float32(0.5), done, False, {"t": self.t}


def test_register_an_env_defined_in_python(client) -> None:
    gem.register("py:Echo-v0", EchoEnv, turns=2)
    assert "py:Echo-v0" in client.list_envs("py:")
    envs = gem.make_vec("py:Echo-v0", num_envs=2, wrappers=["concat_with_action", "episode_tracking"], seed=100)
    obs, infos = envs.reset(seed=1)
    assert obs[1].startswith("start seed=2 own=101")
    obs, rewards, terminated, _, infos = envs.step(["hi", "yo"])
    assert "echo yo" in obs[1] and rewards.tolist() == [0.5, 0.5] and infos[0]["cumulative_rewards"] == 0.5
    obs, rewards, terminated, _, infos = envs.step({0: "again"})
    assert terminated.tolist() == [True] and obs[0].startswith("start")  # same_step autoreset
    envs.close()
    single = gem.make("py:Echo-v0", turns=5)
    single.reset()
    assert single.step("x")[0] == "echo x"
    single.close()


def test_a_failing_python_env_raises_with_its_message(client) -> None:
    class Broken(EchoEnv):
        def step(self, action):
            raise ZeroDivisionError("boom")

    gem.register("py:Broken-v0", Broken)
    env = gem.make("py:Broken-v0")
    env.reset()
    with pytest.raises(gem.GemError, match="ZeroDivisionError: boom"):
        env.step("x")
    env.close()


def test_register_dataset_sends_arrow_tables(client) -> None:
    import pyarrow as pa

    got = gem.register_dataset("pytest:math", pa.table({"problem": ["1+1", "2+3"], "answer": ["2", "5"]}))
    assert got == {"name": "pytest:math", "rows": 2, "columns": ["problem", "answer"]}
    assert gem.register_dataset("pytest:rows", [{"q": "a", "n": 1}])["rows"] == 1
    with pytest.raises(gem.GemError) as e:
        gem.register_dataset("pytest:empty", pa.table({"q": pa.array([], pa.string())}))
    assert e.value.code == "DATASET_INVALID"


def test_closed_and_foreign_handles(client, fresh_client) -> None:
    envs = gem.make_vec(EASY, num_envs=2)
    envs.reset()
    with pytest.raises(gem.UnknownHandleError) as e:
        fresh_client.step(envs.handle, [0], ["\\boxed{1}"])
    assert e.value.code == "UNKNOWN_HANDLE"
    envs.close()
    with pytest.raises(gem.UnknownHandleError):
        envs.step(["a", "b"])


def test_stats_count_this_clients_envs(client) -> None:
    before = client.stats()["client"]["envs"]
    envs = gem.make_vec(EASY, num_envs=5)
    assert client.stats()["client"]["envs"] == before + 5
    envs.close()
    assert client.stats()["client"]["envs"] == before


def test_register_dataset_takes_hf_datasets_and_pandas(client) -> None:
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"question": [f"q{i}" for i in range(10)], "answer": [str(i) for i in range(10)]})
    assert gem.register_dataset("pytest:hf", ds)["rows"] == 10
    view = ds.shuffle(seed=0).select(range(3))  # an indices mapping over the same Arrow table
    from gem_ts.datasets import to_arrow_table

    assert to_arrow_table(view).column("question").to_pylist() == view["question"]
    assert gem.register_dataset("pytest:hf-view", view)["rows"] == 3
    pd = pytest.importorskip("pandas")
    assert gem.register_dataset("pytest:pd", pd.DataFrame({"q": ["a", "b"], "n": [1, 2]}))["columns"] == ["q", "n"]


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_connection_to_the_same_server(client) -> None:
    import multiprocessing as mp

    gem.make(EASY).close()  # the parent's default client is in use
    ctx = mp.get_context("fork")
    q = ctx.Queue()

    def child(q):
        env = gem.make(EASY)
        q.put((env.reset(seed=1)[0][:20], gem.default_client().endpoint))
        env.close()

    p = ctx.Process(target=child, args=(q,))
    p.start()
    obs, endpoint = q.get(timeout=60)
    p.join(30)
    assert p.exitcode == 0 and obs == "You are playing Gues" and endpoint == client.endpoint
    assert client.ping() > 0  # the parent's connection and server are untouched


def test_two_clients_in_one_process_both_work(server, client):
    """connect() makes a new default without closing the client that earlier envs still use."""
    first = gem.connect(server.endpoint)
    env = gem.make("game:GuessTheNumber-v0-easy")
    second = gem.connect(server.endpoint)
    try:
        obs, _ = env.reset(seed=0)
        assert isinstance(obs, str) and env.step("\\boxed{3}")[3] is False
        other = gem.make("game:GuessTheNumber-v0-easy")  # made by the new default
        assert other.reset(seed=0)[0] == obs
        other.close()
    finally:
        env.close()
        second.close()
        first.close()
        gem.set_default_client(client)  # the session's default, for the tests after this one


def test_a_closed_client_says_so(server):
    client = gem.Client(server.endpoint)
    client.close()
    with pytest.raises(gem.ServerUnavailableError, match="client is closed"):
        client.ping()


def test_make_from_a_spec_rebuilds_options_and_wrappers(client):
    first = gem.make("game:GuessTheNumber-v0-easy", max_turns=3)
    first = get_wrapper_fns("concat,episode_tracking")[0](first)
    first = first.with_wrappers(get_wrapper_fns("episode_tracking"))
    spec = first.spec
    assert spec["wrappers"] == ["concat", "episode_tracking"] and spec["options"]["max_turns"] == 3
    assert not any(type(v).__name__ == "ExtType" for v in spec.values())  # no msgpackr 'undefined'
    again = gem.make(spec)
    try:
        assert again.spec == spec
        assert again.reset(seed=4) == first.reset(seed=4)
        assert again.step("\\boxed{2}") == first.step("\\boxed{2}")
        shorter = gem.make(spec, max_turns=1)
        assert shorter.spec["options"]["max_turns"] == 1
        shorter.close()
    finally:
        again.close()
        first.close()
