"""nemo-gym 0.7's own simple agent (its /run: seed_session, model calls, tool calls, verify) and its own
ServerClient play gem-ts envs served by gem_ts_nemo_gym's resources server, against a scripted model."""
from __future__ import annotations

import asyncio
import json
import os
import re
from typing import Any, Dict, List

import gem_ts
import gem_ts.wrappers
import pytest
from gem_ts_adapter_kit.testing import play_directly
from gem_ts_nemo_gym import dataset_rows
from harness import AGENT, RESOURCES, Servers, global_config
from nemo_gym import server_utils
from nemo_gym.server_utils import ServerClient, get_response_json
from omegaconf import OmegaConf
from stub_model import StubResponsesModel

GAME = "game:GuessTheNumber-v0-easy"


def run_rows(cfg: Dict[str, Any], rows: List[Dict[str, Any]], server: str = AGENT, path: str = "/run"):
    """Posts each row to the agent's /run with nemo-gym's ServerClient; returns (status, json) per row."""
    # As in a process NeMo Gym's launcher started: the resolved config comes in the environment.
    os.environ["NEMO_GYM_CONFIG_DICT"] = json.dumps(cfg)
    client = ServerClient(
        head_server_config=server_utils.BaseServerConfig(**cfg["head_server"]),
        global_config_dict=OmegaConf.create(cfg),
    )

    async def main():
        out = []
        try:
            for row in rows:
                resp = await client.post(server_name=server, url_path=path, json=row)
                out.append((resp.status, await get_response_json(resp) if resp.status == 200 else (await resp.read()).decode()))
        finally:
            if server_utils.is_global_aiohttp_client_setup():
                await server_utils.get_global_aiohttp_client().close()
                server_utils._GLOBAL_AIOHTTP_CLIENT = None
        return out

    return asyncio.run(main())


@pytest.fixture
def stack(tmp_path):
    made = []

    def start(policy, max_steps=None):
        model = StubResponsesModel(policy)
        cfg = global_config(model.port, max_steps=max_steps)
        servers = Servers(cfg, tmp_path)
        made.append((model, servers))
        return model, servers, cfg

    yield start
    for model, servers in made:
        servers.stop()
        model.close()


def tool_outputs(items):
    return [json.loads(i["output"]) for i in items if i.get("type") == "function_call_output"]


def bisect(items):
    """Guess by bisection from the step tool's observations; stop with a message once the game is over."""
    outs = tool_outputs(items)
    if outs and (outs[-1]["terminated"] or outs[-1]["truncated"]):
        return ("message", "done")
    lo, hi = 1, 10
    for o in outs:
        said = re.search(r"guessed (\d+), and the target number is (higher|lower)", o["observation"])
        if said:
            g = int(said.group(1))
            lo, hi = (max(lo, g + 1), hi) if said.group(2) == "higher" else (lo, min(hi, g - 1))
    return ("tool", f"\\boxed{{{(lo + hi) // 2}}}")


def test_game_played_to_the_end_matches_direct_play(stack):
    model, servers, cfg = stack(bisect)
    seeds = [3, 4, 5]
    rows = dataset_rows(GAME, seeds)
    results = run_rows(cfg, rows)
    assert [status for status, _ in results] == [200] * 3, servers.read_logs()
    total_steps = 0
    for seed, row, (_, res) in zip(seeds, rows, results):
        actions = [json.loads(i["arguments"])["action"] for i in res["response"]["output"] if i["type"] == "function_call"]
        first, direct, observations = play_directly(GAME, seed, actions)
        assert row["responses_create_params"]["input"][-1]["content"] == first
        outs = tool_outputs(res["response"]["output"])
        assert [o["observation"] for o in outs] == observations
        assert [o["reward"] for o in outs] == direct == res["rewards"]
        assert res["steps"] == len(actions) == len(direct) and res["terminated"] and not res["stepped_final_message"]
        assert res["reward"] == pytest.approx(sum(direct)) and res["reward"] > 0  # bisection wins in 4 guesses
        assert (res["env_id"], res["seed"]) == (GAME, seed)
        total_steps += len(direct)
    # One model call per step, plus the closing message of each episode.
    assert len(model.requests) == total_steps + len(seeds)


def test_math_with_inline_dataset_single_turn(stack):
    dataset = [
        {"problem": "Tom has 3 apples and buys 4 more. How many apples does he have?", "answer": "7"},
        {"problem": "What is 6 times 7?", "answer": "42"},
    ]
    answers = {"apples": "7", "6 times 7": "42"}

    def answer(items):
        prompt = items[-1]["content"] if isinstance(items[-1]["content"], str) else json.dumps(items[-1]["content"])
        key = next(k for k in answers if k in prompt)
        right = "apples" in prompt  # right on the first problem, wrong on the second
        return ("message", f"\\boxed{{{answers[key] if right else '5'}}}")

    model, servers, cfg = stack(answer)
    env_id = "math:GSM8K"
    rows = dataset_rows(env_id, [0, 1], options={"dataset": dataset}, tools=False)
    results = run_rows(cfg, rows)
    assert [status for status, _ in results] == [200, 200], servers.read_logs()
    rewards = []
    for seed, (_, res) in zip([0, 1], results):
        final = res["response"]["output"][-1]["content"][0]["text"]
        _, direct, _ = play_directly(env_id, seed, [final], dataset=dataset)
        assert res["rewards"] == direct and res["steps"] == 1 and res["stepped_final_message"] and res["terminated"]
        rewards.append(res["reward"])
    assert sorted(rewards) == [0.0, 1.0]
    assert len(model.requests) == 2


def test_python_tool_env(stack):
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: gem-ts's python_tool refuses to run code")
    env_id = "math:GSM8K"
    dataset = [{"problem": "What is 123 * 45?", "answer": "5535"}]
    code = "<python>print(123 * 45)</python>"

    def policy(items):
        outs = tool_outputs(items)
        if not outs:
            return ("tool", code)
        if not (outs[-1]["terminated"] or outs[-1]["truncated"]):
            got = re.search(r"5535", outs[-1]["observation"])
            return ("tool", f"\\boxed{{{5535 if got else 0}}}")
        return ("message", "finished")

    model, servers, cfg = stack(policy)
    rows = dataset_rows(env_id, [0], options={"dataset": dataset}, wrappers=["python_tool"])
    ((status, res),) = run_rows(cfg, rows)
    assert status == 200, servers.read_logs()
    outs = tool_outputs(res["response"]["output"])
    assert "5535" in outs[0]["observation"]  # the sandbox ran the model's code
    actions = [json.loads(i["arguments"])["action"] for i in res["response"]["output"] if i["type"] == "function_call"]
    env = gem_ts.make(env_id, dataset=dataset).with_wrappers(gem_ts.wrappers.get_wrapper_fns("python_tool"))
    try:
        env.reset(seed=0)
        direct, observations = [], []
        for action in actions:
            obs, reward, terminated, truncated, _ = env.step(action)
            direct.append(float(reward))
            observations.append(obs)
    finally:
        env.close()
    assert terminated
    # python_tool pays its tool-use reward on the code turn, then the answer is graded right.
    assert res["rewards"] == direct and res["steps"] == 2 and direct[-1] == 1.0
    assert res["reward"] == pytest.approx(sum(direct))
    assert [o["observation"] for o in outs] == observations
    assert len(model.requests) == 3


def test_bad_input_gets_a_clear_error(stack):
    model, servers, cfg = stack(lambda items: ("message", "\\boxed{1}"))
    good = dataset_rows(GAME, [3], tools=False)[0]
    unknown = {**good, "env_id": "game:Nope-v0"}
    no_seed = {k: v for k, v in good.items() if k != "seed"}
    bad_options = {**good, "options": "{not json"}
    results = run_rows(cfg, [unknown, no_seed, bad_options])
    assert all(status >= 400 for status, _ in results), results
    (s1, e1), (s2, e2), (s3, e3) = results
    # The agent relays the resources server's 400 inside its own error text (quotes escaped there).
    assert "cannot make gem-ts env" in e1 and "game:Nope-v0" in e1 and "is not registered" in e1
    assert "seed" in e2
    assert "bad gem-ts row" in e3 and "options must be a JSON object" in e3
    assert model.requests == []  # no episode reached the model
    # The resources server's own endpoints, straight: a step before any seed, and a malformed step body.
    import requests

    base = servers.url(RESOURCES)
    r = requests.post(base + "/step", json={"action": "\\boxed{1}"}, timeout=10)
    assert r.status_code == 409 and "before /seed_session" in r.text
    r = requests.post(base + "/step", json={"move": 1}, timeout=10)
    assert r.status_code == 422
    # A good row still plays after the bad ones: the server survived them.
    ((status, res),) = run_rows(cfg, [good])
    assert status == 200 and res["steps"] == 1 and res["stepped_final_message"]
    _, direct, _ = play_directly(GAME, 3, ["\\boxed{1}"])
    assert res["rewards"] == direct
    # verify without a session (no cookie): a well-formed body, but no env to grade.
    body = {"responses_create_params": res["responses_create_params"], "response": res["response"]}
    r = requests.post(base + "/verify", json=body, timeout=10)
    assert r.status_code == 409 and "verify before /seed_session" in r.text
