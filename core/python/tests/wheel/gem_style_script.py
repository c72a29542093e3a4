"""A GEM user's script, run by test_wheel_install.py inside a fresh venv holding only the gem-ts wheel
(and its dependencies): a game episode, a vector rollout and a sandboxed python_tool call. Prints one
JSON line of what it did, for the test to check."""

import json
import sys

import gem_ts as gem
from gem_ts.wrappers import get_wrapper_fns

report = {"module": gem.__file__}

# A game episode, played by bisection to the end.
env = gem.make("game:GuessTheNumber-v0-easy")
obs, info = env.reset(seed=7)
low, high, steps, reward = 1, 10, 0, 0.0
while True:
    guess = (low + high) // 2
    obs, reward, terminated, truncated, info = env.step(f"\\boxed{{{guess}}}")
    steps += 1
    if terminated or truncated:
        break
    if "higher" in obs:
        low = guess + 1
    else:
        high = guess - 1
env.close()
report["episode"] = {"steps": steps, "final_reward": float(reward), "terminated": bool(terminated)}

# A vector rollout with GEM's wrappers and same-step autoreset.
envs = gem.make_vec(["game:GuessTheNumber-v0-easy"] * 4, wrappers=get_wrapper_fns("concat,episode_tracking"), seed=0)
envs.reset(seed=0)
done_count, transitions = 0, 0
for t in range(12):
    obs, rewards, terminated, truncated, infos = envs.step([f"\\boxed{{{(t + i) % 10 + 1}}}" for i in range(envs.num_envs)])
    transitions += len(rewards)
    done_count += int((terminated | truncated).sum())
envs.close()
report["vector"] = {"num_envs": 4, "transitions": transitions, "episodes_done": done_count}

# A python_tool call: the code runs in the server's sandbox.
tool_env = get_wrapper_fns("python_tool")[0](gem.make("game:GuessTheNumber-v0-easy"))
tool_env.reset(seed=1)
obs, reward, terminated, truncated, info = tool_env.step("<python>print(sum(range(5)))</python>")
tool_env.close()
report["python_tool"] = {"observation": obs, "reward": float(reward), "use_tool": bool(info.get("use_tool"))}

server = gem.default_client().local_server
report["node"], report["server"] = server.command[0], server.command[1]

print(json.dumps(report))
sys.stdout.flush()
