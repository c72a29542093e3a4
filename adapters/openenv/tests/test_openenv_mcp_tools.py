"""OpenEnv's MCP tools as gem-ts tools: an MCP environment written with openenv 0.10's own classes
(``MCPEnvironment`` over a FastMCP server, as OpenEnv's users write one), served by OpenEnv's own
server code (``create_app`` under uvicorn, in this process) and played through
``gem_ts.make("openenv:Remote-v0", url=..., tools="mcp")``. The tools count their calls, the env
counts the rewards it paid, and both are checked against what gem-ts reported."""
import json
import random
import re
from typing import Any, Callable, Dict, List, Optional

import gem_ts
import pytest
from fastmcp import FastMCP
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation
from openenv.core.env_server.types import Action, Observation, State

REMOTE = "openenv:Remote-v0"

# What the server saw: each tool's calls (with their arguments) and the rewards the env paid.
CALLS: List[Dict[str, Any]] = []
PAID: List[Optional[float]] = []

CAPITALS = {"France": "Paris", "Japan": "Tokyo", "Kenya": "Nairobi"}


class TaskObservation(Observation):
    text: str = ""


class ProductTask(MCPEnvironment):
    """Multiply two numbers drawn from the seed with a tool, then submit the product (reward 1 if right).
    ``capital`` is a second tool, which raises for a country it does not know."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        server = FastMCP("product-task")
        task = self

        @server.tool
        def multiply(a: int, b: int) -> int:
            """Multiply two integers."""
            CALLS.append({"tool": "multiply", "a": a, "b": b})
            return a * b

        @server.tool
        def capital(country: str) -> str:
            """The capital city of a country."""
            CALLS.append({"tool": "capital", "country": country})
            return CAPITALS[country]

        @server.tool
        def submit(answer: int) -> str:
            """Submit the final answer; ends the episode."""
            CALLS.append({"tool": "submit", "answer": answer})
            task.submitted = answer
            return "submitted"

        super().__init__(server)
        self._state = State()
        self.a = self.b = 0
        self.submitted: Optional[int] = None

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> TaskObservation:
        rng = random.Random(seed)
        self.a, self.b = rng.randint(11, 99), rng.randint(11, 99)
        self.submitted = None
        self._state = State(episode_id=episode_id, step_count=0)
        return TaskObservation(text=f"Multiply {self.a} by {self.b} with the multiply tool, then submit the product.")

    async def step_async(self, action: Action, timeout_s: Optional[float] = None, **kwargs: Any) -> Observation:
        obs = await super().step_async(action, timeout_s=timeout_s, **kwargs)
        self._state.step_count += 1
        if isinstance(action, CallToolAction) and action.tool_name == "submit" and self.submitted is not None:
            obs.reward = 1.0 if self.submitted == self.a * self.b else 0.0
            obs.done = True
            PAID.append(obs.reward)
        return obs

    def _step_impl(self, action: Action, timeout_s: Optional[float] = None, **kwargs: Any) -> Observation:
        return TaskObservation(text="This env only takes tool calls.", reward=0.0)

    @property
    def state(self) -> State:
        return self._state


@pytest.fixture(scope="module")
def url(serve_app: Callable[[Any], str]) -> str:
    return serve_app(create_app(ProductTask, CallToolAction, CallToolObservation, env_name="product_task", max_concurrent_envs=16))


def _call(name: str, args: Any) -> str:
    body = args if isinstance(args, str) else json.dumps(args)
    return f"I will use a tool.\n<tool_call>\n<tool_name>{name}</tool_name>\n<arguments>{body}</arguments>\n</tool_call>"


def test_episodes_played_with_openenv_mcp_tools(url: str) -> None:
    calls_before, paid_before = len(CALLS), len(PAID)
    env = gem_ts.make(REMOTE, url=url, tools="mcp")
    episodes, tool_turns, rewards = 0, 0, []
    for seed in (1, 2, 3):
        obs, info = env.reset(seed=seed)
        a, b = (int(n) for n in re.findall(r"Multiply (\d+) by (\d+)", obs)[0])
        # The remote's tools are in the prompt, as gem-ts's mcp_tool lists an MCP server's tools.
        assert "# Tool-Use Instructions" in obs
        listed = [json.loads(line)["function"]["name"] for line in obs.split("<tools>\n")[1].split("\n</tools>")[0].splitlines()]
        assert sorted(listed) == ["capital", "multiply", "submit"]
        assert info["tool_use_counter"] == 0 and info["use_tool"] is False
        obs, reward, terminated, truncated, info = env.step(_call("multiply", {"a": a, "b": b}))
        tool_turns += 1
        # FastMCP's structured result, rendered as gem-ts's mcp_tool renders it.
        assert json.loads(obs) == {"result": a * b}
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert info["use_tool"] is True and info["tool_type"] == "mcp" and info["tool_success_counter"] == 1
        obs, reward, terminated, truncated, info = env.step(_call("submit", {"answer": json.loads(obs)["result"]}))
        tool_turns += 1
        rewards.append(reward)
        assert json.loads(obs) == {"result": "submitted"}
        assert terminated and not truncated and info["tool_use_counter"] == 2
        episodes += 1
    env.close()
    calls = CALLS[calls_before:]
    assert episodes == 3 and rewards == [1.0, 1.0, 1.0]
    assert len(calls) == tool_turns == 6
    assert [c["tool"] for c in calls] == ["multiply", "submit"] * 3
    assert PAID[paid_before:] == rewards


def test_bad_tool_calls_are_observations_and_the_session_goes_on(url: str) -> None:
    calls_before = len(CALLS)
    env = gem_ts.make(REMOTE, url=url, tools="mcp")
    env.reset(seed=5)
    # A tool that is not there: OpenEnv's tool_not_found, with the tools there are.
    obs, reward, terminated, _, info = env.step(_call("divide", {"a": 1, "b": 2}))
    assert obs.startswith("[Tool error (tool_not_found) calling 'divide'") and obs.endswith("Available tools: capital, multiply, submit")
    assert not terminated and reward == 0.0 and info["tool_error"] == obs
    # Arguments of the wrong type: FastMCP's validation error.
    obs, _, terminated, _, info = env.step(_call("multiply", {"a": "x", "b": 2}))
    assert obs.startswith("[Tool error (execution_error) calling 'multiply'") and "valid integer" in obs and not terminated
    # The tool raising.
    obs, _, terminated, _, info = env.step(_call("capital", {"country": "Atlantis"}))
    assert obs.startswith("[Tool error (execution_error) calling 'capital'") and "Atlantis" in obs and not terminated
    # Arguments that are not JSON: answered by gem-ts, nothing sent.
    obs, _, terminated, _, info = env.step(_call("capital", "{country: France}"))
    assert obs.startswith("[Invalid tool call: the arguments are not valid JSON") and not terminated
    # The session still plays: a good call, then the answer.
    obs, _, _, _, info = env.step(_call("capital", {"country": "Kenya"}))
    assert json.loads(obs) == {"result": "Nairobi"}
    assert info["tool_use_counter"] == 5 and info["tool_success_counter"] == 1
    # Text without a tool call is not an action this env takes: a format error, the episode is over.
    obs, reward, terminated, _, info = env.step("The answer is 42.")
    assert obs.startswith("Invalid action") and "tool calls" in obs and reward == -0.1 and terminated and "invalid_action" in info
    env.close()
    # The server saw the calls that reached a tool (an unknown tool reaches none; FastMCP refuses bad arguments first).
    assert [c["tool"] for c in CALLS[calls_before:]] == ["capital", "capital"]


def test_a_non_mcp_env_with_tools_mcp_is_a_configuration_error(serve_app: Callable[[Any], str]) -> None:
    class Plain(Action):
        message: str

    class PlainEnv(ProductTask):
        pass

    plain = serve_app(create_app(PlainEnv, Plain, TaskObservation, env_name="plain"))
    env = gem_ts.make(REMOTE, url=plain, tools="mcp")
    with pytest.raises(gem_ts.errors.InvalidOptionsError, match=re.escape(plain) + ".*refused a list_tools action"):
        env.reset(seed=1)
    env.close()
