"""WRAPPER_FACTORY and the wrapper orders GEM accepts (built as given, with a warning)."""

import pytest

import gem_ts as gem
from gem_ts.wrappers.wrapper_factory import TOKENIZER_REQUIRED, WRAPPER_FACTORY, get_wrapper_fns


def test_factory_holds_gem_names_and_wraps(client):
    for name in ("python_tool", "search_tool", "concat", "concat_chat", "concat_with_action", "concat_chat_on_reset", "episode_tracking"):
        assert name in WRAPPER_FACTORY
    assert set(TOKENIZER_REQUIRED) == {"concat_chat", "concat_chat_on_reset"}
    env = WRAPPER_FACTORY["episode_tracking"](WRAPPER_FACTORY["concat"](gem.make("game:GuessTheNumber-v0")))
    assert repr(env) == "<episode_tracking<concat<game:GuessTheNumber-v0>>>"
    env.reset(seed=0)
    obs, *_ = env.step("\\boxed{5}")
    assert "\\boxed{5}" not in obs and "5" in obs
    chat = WRAPPER_FACTORY["concat_chat"](gem.make("game:GuessTheNumber-v0"), tokenizer="chatml")
    assert "<|im_start|>" in chat.reset()[0]
    with pytest.raises(ValueError, match="needs a tokenizer"):
        WRAPPER_FACTORY["concat_chat"](gem.make("game:GuessTheNumber-v0"))


@pytest.mark.parametrize(
    "order, stack",
    [
        ("episode_tracking,concat", "<concat<episode_tracking<game:GuessTheNumber-v0>>>"),
        ("concat,python_tool", "<python_tool<concat<game:GuessTheNumber-v0>>>"),
    ],
)
def test_gem_orders_build_as_given_with_a_warning(client, order, stack):
    with pytest.warns(UserWarning, match="built in that order"):
        vec = gem.make_vec("game:GuessTheNumber-v0", wrappers=get_wrapper_fns(order), num_envs=2)
    assert vec._repr == [stack, stack]
    vec.reset(seed=0)
    obs, rewards, *_ = vec.step(["\\boxed{4}", "\\boxed{9}"])
    assert len(obs) == 2 and len(rewards) == 2
    vec.close()


def test_usual_order_does_not_warn_and_a_bad_one_still_fails(client, recwarn):
    gem.make_vec("game:GuessTheNumber-v0", wrappers=get_wrapper_fns("python_tool,concat,episode_tracking")).close()
    assert not [w for w in recwarn if "built in that order" in str(w.message)]
    with pytest.raises(gem.InvalidWrapperError, match="appears twice"):
        gem.make_vec("game:GuessTheNumber-v0", wrappers=get_wrapper_fns("concat,concat"))


def test_a_misspelt_name_fails_where_it_is_typed():
    # No server needed: GEM's factory fails at the lookup, and so does ours, naming the closest name.
    with pytest.raises(gem.InvalidWrapperError, match="Unknown wrapper 'concat_wiht_action'. Did you mean 'concat_with_action'"):
        get_wrapper_fns("python_tool,concat_wiht_action")
    assert [f.name for f in get_wrapper_fns("time_limit, episode_tracking")] == ["time_limit", "episode_tracking"]
