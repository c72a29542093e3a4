"""The file to pass as `--train.agent_func_path`: OpenRLHF loads it by path and builds `AgentExecutor()`.

Configure with environment variables on every node: GEM_TS_RAY_POOL (the name of a
`gem_ts.ray.EnvServerPool`: each vLLM actor plays through the server on its own Ray node) or
GEM_TS_ENDPOINT (a running gem-ts server; neither set = a local server per vLLM actor), GEM_TS_ENV_ID
(for labels that are bare seeds), GEM_TS_SYSTEM_PROMPT.
"""
from gem_ts_openrlhf.agent import GemTsAgentExecutor as AgentExecutor  # noqa: F401
