"""A Python caller reads every suggestion in Python: the server's code hints (core/src/core/codeHint.ts)
become Python calls, GEM's and Gymnasium's reset forms both work, and endpoint mistakes are gem_ts
errors that say what to do, quickly."""

from __future__ import annotations

import socket
import time

import pytest

import gem_ts as gem
from gem_ts.errors import error_from_wire, python_hint

ROWS = [{"problem": "1+1?", "answer": "2"}, {"problem": "2+2?", "answer": "4"}]


def test_each_hint_kind_reads_as_python():
    assert python_hint({"kind": "make", "id": "math:GSM8K", "options": {"dataset": "/p.parquet", "eval": True}}) == (
        "gem_ts.make('math:GSM8K', dataset='/p.parquet', eval=True)"
    )
    assert python_hint({"kind": "reset", "options": {"idx": {"code": "i"}}}) == "env.reset(idx=i)"
    assert python_hint({"kind": "reset_envs", "indices": [{"code": "i"}]}) == "envs.reset(indices=[i])"
    assert python_hint({"kind": "register_dataset", "name": "o/s:train", "hub": "o/s", "split": "train"}) == (
        "gem_ts.register_dataset('o/s:train', datasets.load_dataset('o/s', split='train'))"
    )
    assert python_hint({"kind": "value", "value": None}) == "None" and python_hint({"kind": "value", "value": True}) == "True"
    assert python_hint({"kind": "from a newer server"}) is None


def test_a_wire_error_has_its_hints_rewritten_and_nothing_else():
    err = error_from_wire(
        {
            "code": "INVALID_OPTIONS",
            "message": "x must be an integer or null (not nullable), got 'null'; see make('a:b', {x: 1})",
            "data": {
                "hints": [
                    {"kind": "value", "value": None, "text": "null"},
                    {"kind": "make", "id": "a:b", "options": {"x": 1}, "text": "make('a:b', {x: 1})"},
                    {"kind": "unknown", "text": "keep me"},
                ]
            },
        },
        "make",
    )
    assert err.message == "make: x must be an integer or None (not nullable), got 'None'; see gem_ts.make('a:b', x=1)"
    assert isinstance(err, gem.InvalidOptionsError)


def test_reset_takes_gems_and_gymnasiums_forms_and_names_the_key_typed(client):
    env = gem.make("math:Orz57K", dataset=ROWS)
    assert env.reset(idx=1)[0] == "2+2?"
    assert env.reset(options={"idx": 0})[0] == "1+1?"  # Gymnasium's reset(options=...), as docs/environments.md shows
    with pytest.raises(gem.InvalidOptionsError) as err:
        env.reset(options={"indx": 0})
    text = str(err.value)
    assert "'indx'" in text and "'options'" not in text
    assert "env.reset(idx=i)" in text and "{options:" not in text
    with pytest.raises(ValueError, match="idx given both"):
        env.reset(idx=0, options={"idx": 1})
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=3)
    env.close()


def test_a_vector_env_that_needs_a_reset_says_it_in_python(client):
    envs = gem.make_vec("math:Orz57K", num_envs=2, autoreset_mode="disabled", dataset=ROWS)
    with pytest.raises(gem.ResetNeededError) as err:
        envs.step(["\\boxed{2}", "\\boxed{2}"])  # never reset
    text = str(err.value)
    assert "envs.reset(indices=[i])" in text and "{indices:" not in text
    envs.close()


@pytest.mark.parametrize("endpoint", ["localhost:5555", "127.0.0.1:5555", "tcp://localhost", "tcp:/x", "tcp://a b:1"])
def test_a_malformed_endpoint_is_a_gem_ts_error_not_a_zmq_one(monkeypatch, endpoint):
    monkeypatch.setenv("GEM_TS_ENDPOINT", endpoint)
    with pytest.raises(gem.InvalidRequestError) as err:
        gem.Client()
    assert type(err.value).__module__.startswith("gem_ts")
    if endpoint == "localhost:5555":
        assert "'tcp://localhost:5555'" in str(err.value) and "unset GEM_TS_ENDPOINT" in str(err.value)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_local_endpoint_with_no_server_fails_within_2_s_and_says_how_to_fix_it(monkeypatch):
    endpoint = f"tcp://127.0.0.1:{_free_port()}"
    monkeypatch.setenv("GEM_TS_ENDPOINT", endpoint)
    started = time.monotonic()
    with pytest.raises(gem.ServerUnavailableError) as err:
        gem.Client()
    assert time.monotonic() - started < 2.5
    text = str(err.value)
    assert f"gem-ts serve --endpoint {endpoint}" in text and "unset GEM_TS_ENDPOINT" in text
