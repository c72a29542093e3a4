"""gem-ts errors cross process boundaries intact: Ray, multiprocessing and copy all rebuild an exception
through pickle, and a class whose ``__init__`` does not take ``self.args`` came back as Ray's
UnserializableException (or a TypeError), its message lost."""

from __future__ import annotations

import copy
import pickle

import pytest

from gem_ts.errors import ERROR_CLASSES, GemError, ServerUnavailableError

EVERY_CLASS = [GemError, *ERROR_CLASSES.values()]


@pytest.mark.parametrize("cls", EVERY_CLASS, ids=lambda c: c.__name__)
def test_every_error_class_survives_pickle_with_its_code_message_and_data(cls: type) -> None:
    err = cls("SOME_CODE", "what went wrong\nand a second line", {"detail": [1, 2]})
    for back in (pickle.loads(pickle.dumps(err)), copy.deepcopy(err)):
        assert type(back) is cls
        assert (back.code, back.message, back.data) == ("SOME_CODE", "what went wrong\nand a second line", {"detail": [1, 2]})
        assert str(back) == str(err) and back.args == err.args


def test_a_subclass_with_its_own_init_survives_pickle_with_its_own_fields() -> None:
    pytest.importorskip("ray", reason="gem_ts.ray needs Ray: the quick tier has none, npm test installs it")
    from gem_ts.ray.sharded import EnvLostError

    err = EnvLostError([3, 1], ["tcp://10.0.0.2:5555"], why="server gone")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is EnvLostError and isinstance(back, ServerUnavailableError) and isinstance(back, ConnectionError)
    assert back.indices == [3, 1] and back.result is None and back.data == err.data and str(back) == str(err)


def test_a_pickled_error_is_still_caught_as_its_builtin_family() -> None:
    back = pickle.loads(pickle.dumps(ERROR_CLASSES["UNKNOWN_ENV"]("UNKNOWN_ENV", "no env 'x'")))
    with pytest.raises(ValueError, match="no env 'x'"):
        raise back
