"""openenv 0.10's own, unmodified clients (GenericEnvClient, MCPToolClient) play gem-ts envs served by
the TypeScript server's OpenEnv front door (`gem-ts serve --openenv`): a game to the end, a math env
with an inline dataset, a code env graded in the sandbox, a tool env (python_tool), many sessions at
once, and bad input."""
import asyncio
import json
import re
import urllib.error
import urllib.request

import gem_ts
import pytest
from conftest import GAME, MATH, ROWS, needs_sandbox
from gem_ts_adapter_kit.testing import play_directly
from gem_ts_openenv import GemTsAction, GemTsEnv, GemTsObservation, serve
from openenv.core import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient


def bisect(text, lo_hi):
    """GuessTheNumber by halving: the hint in `text` narrows [lo, hi]; returns the next guess."""
    lo, hi = lo_hi
    said = re.search(r"guessed (\d+), and the target number is (higher|lower)", text)
    if said:
        g = int(said.group(1))
        lo_hi[:] = [g + 1, hi] if said.group(2) == "higher" else [lo, g - 1]
    return (lo_hi[0] + lo_hi[1]) // 2


def play_game(env, seed):
    """One episode; returns (first observation, actions, rewards, observations, last result)."""
    result = env.reset(seed=seed)
    first = result.observation["text"]
    assert result.reward is None and result.done is False
    bounds, actions, rewards, observations = [1, 10], [], [], []
    text = first
    while not result.done:
        action = f"\\boxed{{{bisect(text, bounds)}}}"
        result = env.step({"message": action})
        text = result.observation["text"]
        actions.append(action)
        rewards.append(result.reward)
        observations.append(text)
        assert len(actions) <= 10
    return first, actions, rewards, observations, result


def test_game_played_to_the_end_matches_direct_play(server):
    episodes, steps, total = 0, 0, 0.0
    with GenericEnvClient(base_url=server.base_url(GAME)).sync() as env:
        for seed in (3, 4, 5):
            first, actions, rewards, observations, last = play_game(env, seed)
            direct_first, direct_rewards, direct_observations = play_directly(GAME, seed, actions)
            assert (first, rewards, observations) == (direct_first, direct_rewards, direct_observations)
            assert last.done and last.observation["terminated"] and not last.observation["truncated"]
            state = env.state()
            assert state["env_id"] == GAME and state["seed"] == seed
            assert state["step_count"] == len(actions) and state["total_reward"] == sum(rewards) and state["done"]
            episodes += 1
            steps += len(actions)
            total += sum(rewards)
    assert episodes == 3 and total == 3.0  # bisecting 1..10 wins within the 4 turns every time
    assert 3 <= steps <= 12


def test_typed_client_plays_the_same_game(server):
    with GemTsEnv(base_url=server.base_url(GAME)).sync() as env:
        result = env.reset(seed=3)
        assert isinstance(result.observation, GemTsObservation) and result.reward is None
        guesses = []
        bounds = [1, 10]
        while not result.done:
            guesses.append(bisect(result.observation.text, bounds))
            result = env.step(GemTsAction(message=f"\\boxed{{{guesses[-1]}}}"))
        assert result.reward == 1.0 and result.observation.terminated and not result.observation.truncated
        _, direct, _ = play_directly(GAME, 3, [f"\\boxed{{{g}}}" for g in guesses])
        state = env.state()
        assert state.step_count == len(direct) and state.total_reward == sum(direct) == 1.0 and state.env_id == GAME


def test_many_sessions_at_once_each_its_own_env(server):
    async def one(seed):
        async with GenericEnvClient(base_url=server.base_url(GAME)) as env:
            result = await env.reset(seed=seed)
            bounds, n, text = [1, 10], 0, result.observation["text"]
            while not result.done:
                result = await env.step({"message": f"\\boxed{{{bisect(text, bounds)}}}"})
                text = result.observation["text"]
                n += 1
            return n, result.reward, (await env.state())["episode_id"]

    async def main():
        return await asyncio.gather(*(one(seed) for seed in range(16)))

    results = asyncio.run(main())
    assert len(results) == 16 and all(reward == 1.0 for _, reward, _ in results)
    assert len({episode for _, _, episode in results}) == 16
    for seed, (n, _, _) in enumerate(results):
        _, direct, _ = play_directly(GAME, seed, [f"\\boxed{{{g}}}" for g in _bisect_guesses(seed)])
        assert n == len(direct)


def _bisect_guesses(seed):
    """The guesses bisect makes on seed `seed`, replayed on a direct env."""
    import gem_ts

    env = gem_ts.make(GAME)
    try:
        text, _ = env.reset(seed=seed)
        bounds, guesses, done = [1, 10], [], False
        while not done:
            g = bisect(text, bounds)
            guesses.append(g)
            text, _, terminated, truncated, _ = env.step(f"\\boxed{{{g}}}")
            done = terminated or truncated
        return guesses
    finally:
        env.close()


def test_math_env_with_an_inline_dataset(server):
    outcomes = {}
    with GenericEnvClient(base_url=server.base_url(MATH)).sync() as env:
        for seed in range(4):
            result = env.reset(seed=seed, options={"dataset": ROWS})
            question = result.observation["text"]
            assert question == play_directly(MATH, seed, [], dataset=ROWS)[0]
            right = "42" if "6*7" in question else "5"
            for answer in (right, "13"):
                if answer != right:
                    env.reset(seed=seed, options={"dataset": ROWS})
                result = env.step({"message": f"The answer is \\boxed{{{answer}}}."})
                assert result.done and result.metadata["correct"] is (answer == right)
                outcomes[(seed, answer == right)] = result.reward
    assert sorted(set(outcomes.values())) == [0.0, 1.0]
    assert all(r == 1.0 for (_, ok), r in outcomes.items() if ok) and len(outcomes) == 8



def test_a_shared_table_pushed_over_zeromq_plays_over_openenv(server):
    """gem-ts serve gives both front doors one session layer: a `shared/` table that a gem_ts client
    pushes over ZeroMQ is a dataset name an OpenEnv session can play."""
    client = gem_ts.Client(server.endpoint)
    try:
        gem_ts.register_dataset("shared/openenv-rows", ROWS, client=client)
        with GenericEnvClient(base_url=server.base_url(MATH)).sync() as env:
            result = env.reset(seed=1, options={"dataset": "shared/openenv-rows"})
            question = result.observation["text"]
            assert question == play_directly(MATH, 1, [], dataset=ROWS)[0]
            right = "42" if "6*7" in question else "5"
            result = env.step({"message": f"The answer is \\boxed{{{right}}}."})
            assert result.done and result.reward == 1.0
    finally:
        client.close()

@needs_sandbox
def test_code_env_graded_in_the_sandbox(server):
    rows = [{"problem": "Read a number and print it twice as large.", "tests": {"inputs": ["3\n", "10\n"], "outputs": ["6\n", "20\n"]}}]
    replies = {
        "right": "```python\nprint(int(input())*2)\n```",
        "wrong": "```python\nprint(int(input())+2)\n```",
        "no code": "I would double it.",
    }
    rewards = {}
    with GenericEnvClient(base_url=server.base_url("code:CodeContest"), message_timeout_s=120).sync() as env:
        for name, reply in replies.items():
            first = env.reset(seed=0, options={"dataset": rows})
            assert first.observation["text"] == play_directly("code:CodeContest", 0, [], dataset=rows)[0]
            result = env.step({"message": reply})
            assert result.done and env.state()["step_count"] == 1
            assert [result.reward] == play_directly("code:CodeContest", 0, [reply], dataset=rows)[1]
            rewards[name] = (result.reward, result.metadata)
    assert rewards["right"] == (1.0, {"correct": True, "tests_passed": 2, "tests_total": 2})
    assert rewards["wrong"][0] == 0.0 and rewards["wrong"][1]["tests_passed"] == 0
    assert rewards["no code"] == (-0.1, {"correct": False, "format_error": True})


def test_default_env_of_the_server_serves_a_plain_base_url():
    # What a stack that only knows a base URL and calls reset() gets (TRL, SkyRL's OpenEnv integration).
    with serve(MATH, options={"dataset": ROWS[:1]}) as s, GenericEnvClient(base_url=s.url).sync() as env:
        result = env.reset()
        assert "What is 6*7?" in result.observation["text"]
        result = env.step({"message": "\\boxed{42}"})
        assert (result.reward, result.done) == (1.0, True)


@needs_sandbox
def test_tool_env_python_tool_turn_then_the_answer(server):
    with GenericEnvClient(base_url=server.base_url(MATH)).sync() as env:
        result = env.reset(seed=0, options={"dataset": ROWS[:1]}, wrappers=["python_tool"])
        assert "<python>" in result.observation["text"]
        tool = env.step({"message": "<python>print(6*7)</python>"})
        assert "Code execution result: 42" in tool.observation["text"] and not tool.done
        assert tool.metadata["use_tool"] is True and tool.metadata["tool_use_counter"] == 1
        answer = env.step({"message": "\\boxed{42}"})
        assert answer.reward == 1.0 and answer.done
        state = env.state()
        assert state["step_count"] == 2 and state["total_reward"] == pytest.approx(tool.reward + 1.0)


@needs_sandbox
def test_tools_through_mcp_tool_client(server):
    with MCPToolClient(base_url=server.base_url(MATH)).sync() as env:
        env.reset(seed=0, options={"dataset": ROWS[:1]}, wrappers=["python_tool"])
        tools = env.list_tools()
        assert [t.name for t in tools] == ["python"]
        assert tools[0].input_schema["required"] == ["code"]
        assert env.call_tool("python", code="print(6*7)") == "42\n"
        assert env.call_tool("python", code="raise SystemExit(3)") is not None  # the program's failure is a result
        with pytest.raises(RuntimeError, match="Tool 'bash' failed: Tool not found"):
            env.call_tool("bash", cmd="ls")
        with pytest.raises(RuntimeError, match="Invalid arguments for 'python'"):
            env.call_tool("python", source="print(1)")
        assert env.state().step_count == 0  # direct tool calls are not env steps


def test_bad_input_gets_openenv_shaped_errors(server):
    with GenericEnvClient(base_url=server.base_url("game:Nope-v0")).sync() as env:
        with pytest.raises(RuntimeError, match=r"'game:Nope-v0' is not registered.*\(code: FACTORY_ERROR\)"):
            env.reset()
    with GenericEnvClient(base_url=server.base_url(GAME)).sync() as env:
        with pytest.raises(RuntimeError, match=r"unknown option 'bogus'.*\(code: FACTORY_ERROR\)"):
            env.reset(options={"bogus": 1})
        with pytest.raises(RuntimeError, match=r"Call reset before step.*\(code: EXECUTION_ERROR\)"):
            env.step({"message": "\\boxed{1}"})
        env.reset(seed=1)
        with pytest.raises(RuntimeError, match=r"'message'.*\(code: VALIDATION_ERROR\)"):
            env.step({"text": "\\boxed{1}"})
        with pytest.raises(RuntimeError, match=r"'seed'.*\(code: VALIDATION_ERROR\)"):
            env.reset(seed=-1)
        assert env.step({"message": "\\boxed{5}"}).reward is not None  # the session still plays

    # Malformed messages, sent raw on the same /ws route the clients use.
    from websockets.sync.client import connect

    with connect(server.base_url(GAME).replace("http://", "ws://") + "/ws") as ws:
        for raw, code in (("{nope", "INVALID_JSON"), (json.dumps({"type": "jump"}), "UNKNOWN_TYPE"), (json.dumps({"type": "step"}), "VALIDATION_ERROR")):
            ws.send(raw)
            reply = json.loads(ws.recv(timeout=30))
            assert reply["type"] == "error" and reply["data"]["code"] == code, reply
        ws.send(json.dumps({"type": "reset", "data": {"seed": 3}}))
        assert json.loads(ws.recv(timeout=30))["type"] == "observation"

    # Plain HTTP: unknown env id, bad body.
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(urllib.request.Request(server.base_url("game:Nope-v0") + "/reset", data=b"{}", method="POST"))
    assert err.value.code == 404 and json.loads(err.value.read())["code"] == "UNKNOWN_ENV"
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(urllib.request.Request(server.base_url(GAME) + "/step", data=b'{"action": 1}', method="POST"))
    assert err.value.code == 422 and json.loads(err.value.read())["detail"][0]["loc"] == ["body", "action"]


def test_http_routes(server):
    def get(path):
        with urllib.request.urlopen(server.base_url(GAME) + path) as r:
            return json.loads(r.read())

    assert get("/health") == {"status": "healthy"}
    assert set(get("/schema")) == {"action", "observation", "state"}
    assert get("/metadata")["name"] == GAME
    body = json.dumps({"seed": 3, "action": {"message": "\\boxed{7}"}}).encode()
    with urllib.request.urlopen(urllib.request.Request(server.base_url(GAME) + "/step", data=body, method="POST")) as r:
        step = json.loads(r.read())
    assert step["reward"] == 1.0 and step["done"] is True  # a fresh env, reset with the seed, one step


def test_auth_token_and_session_cap():
    with serve(auth_token="s3cret", max_sessions=1) as s:
        with urllib.request.urlopen(s.url + "/health") as r:
            assert json.loads(r.read()) == {"status": "healthy"}
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(s.base_url(GAME) + "/schema")
        assert err.value.code == 401
        with pytest.raises(ConnectionError):
            GenericEnvClient(base_url=s.base_url(GAME)).sync().reset()
        with GenericEnvClient(base_url=s.base_url(GAME), headers=s.headers).sync() as env:
            assert env.reset(seed=3).done is False
            with pytest.raises(RuntimeError, match=r"at capacity.*\(code: CAPACITY_REACHED\)"):
                with GenericEnvClient(base_url=s.base_url(GAME), headers=s.headers).sync() as second:
                    second.reset()
            assert env.step({"message": "\\boxed{5}"}).done is False
