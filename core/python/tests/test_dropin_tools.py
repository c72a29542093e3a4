"""gem_ts.tools: ToolEnvWrapper with PythonCodeTool / SearchTool / MCPTool, run by the server's tools."""

import json

import pytest

import gem_ts as gem
from gem_ts.envs.math_env import MathEnv
from gem_ts.tools.mcp_tool import MCPTool
from gem_ts.tools.python_code_tool import PythonCodeTool
from gem_ts.tools.search_tool import SearchTool
from gem_ts.tools.tool_env_wrapper import ToolEnvWrapper

ROWS = [{"problem": "What is 6*7?", "answer": "42"}]


def test_python_tool_runs_code_and_pays_tool_rewards(client):
    env = ToolEnvWrapper(MathEnv(dataset=ROWS), tools=[PythonCodeTool(timeout=5)], tool_reward=0.1, tool_success_reward=0.2, max_tool_uses=1)
    assert repr(env) == "<python_tool_no_int_reward<math:Math12K>>"
    assert env.max_tool_uses == 1 and isinstance(env.tools[0], PythonCodeTool)
    env.reset()
    obs, reward, terminated, _, info = env.step("```python\nprint(6*7)\n```")
    assert "42" in obs and reward == pytest.approx(0.3) and not terminated and info["tool_success_counter"] == 1
    obs, reward, terminated, _, _ = env.step("```python\nprint(1)\n```\n\\boxed{42}")  # over max_tool_uses: graded
    assert terminated and reward == 1.0


def test_last_line_error_variant_and_timeout_option(client):
    tool = PythonCodeTool(timeout=2, keep_error_last_line=True)
    assert tool.wrapper_name == "python_tool_no_int_reward_last_line_error" and tool.wrapper_options() == {"python_timeout": 2}
    env = ToolEnvWrapper(gem.make("game:GuessTheNumber-v0"), tools=[tool])
    env.reset()
    obs, *_ = env.step("```python\nraise ValueError('boom')\n```")
    assert "ValueError: boom" in obs and "Traceback" not in obs
    with pytest.raises(ValueError, match="timeout"):
        PythonCodeTool(timeout=0)
    with pytest.raises(NotImplementedError, match="runs on the gem-ts server"):
        tool.execute_action("print(1)")


def test_search_and_mcp_tools_configure_their_server_wrappers():
    s = SearchTool(search_url="http://localhost:8000/retrieve", topk=5, timeout=2)
    assert s.wrapper_options() == {"search_topk": 5, "search_timeout": 2, "search_url": "http://localhost:8000/retrieve"}
    m = MCPTool.from_url("http://localhost:9/mcp", auth="tok")
    assert m.wrapper_options()["mcp_config"] == {"url": "http://localhost:9/mcp", "headers": {"Authorization": "Bearer tok"}}
    local = MCPTool.from_local_command({"command": "python", "args": ["srv.py"]}, name="t")
    assert local.config == {"mcpServers": {"t": {"command": "python", "args": ["srv.py"]}}}
    multi = MCPTool.from_multi_server({"a": "http://x/mcp"})
    assert multi.config["mcpServers"]["a"]["transport"] == "http"
    with pytest.raises(NotImplementedError, match="callback"):
        MCPTool("http://x", log_handler=print)


def test_mcp_config_file(tmp_path):
    p = tmp_path / "mcp.json"
    p.write_text(json.dumps({"mcpServers": {"time": {"command": "x"}}}))
    assert MCPTool.from_config_file(str(p)).config == {"mcpServers": {"time": {"command": "x"}}}


def test_search_tool_without_a_retriever_is_a_clear_error(client, monkeypatch):
    with pytest.raises(gem.InvalidOptionsError, match="search_url"):
        ToolEnvWrapper(gem.make("game:GuessTheNumber-v0"), tools=[SearchTool()])


def test_bad_wrapping_is_refused(client):
    with pytest.raises(TypeError, match="non-empty list"):
        ToolEnvWrapper(gem.make("game:GuessTheNumber-v0"), tools=[])
    with pytest.raises(TypeError, match="one it serves"):
        ToolEnvWrapper(object(), tools=[PythonCodeTool()])
