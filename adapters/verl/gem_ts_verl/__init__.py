"""gem-ts adapter for verl 0.9: an AgentLoopBase subclass, its YAML entry, and parquet prompt rows."""
from pathlib import Path

from .data import AGENT_NAME, prompt_records, write_prompt_rows

#: The agent-loop YAML to pass as actor_rollout_ref.rollout.agent.agent_loop_config_path.
AGENT_LOOP_CONFIG = Path(__file__).with_name("agent_loops.yaml")


def pool_agent_loop_config(path, pool_name: str, **keys) -> Path:
    """Writes an agent-loop YAML whose gem_ts loop plays on the node-local server of the
    gem_ts.ray.EnvServerPool named `pool_name` (the `ray_pool` key), plus any other loop `keys`."""
    lines = ["- name: gem_ts", "  _target_: gem_ts_verl.agent_loop.GemTsAgentLoop", f"  ray_pool: {pool_name}"]
    lines += [f"  {k}: {v}" for k, v in keys.items()]
    path = Path(path)
    path.write_text("\n".join(lines) + "\n")
    return path


def __getattr__(name):
    # The loop imports verl (torch, ray, hydra); load it only when asked for.
    if name == "GemTsAgentLoop":
        from .agent_loop import GemTsAgentLoop

        return GemTsAgentLoop
    raise AttributeError(name)


__all__ = ["AGENT_LOOP_CONFIG", "AGENT_NAME", "GemTsAgentLoop", "pool_agent_loop_config", "prompt_records", "write_prompt_rows"]
