"""The reverse direction: an env served by OpenEnv's OWN server code (openenv 0.10's ``create_app`` under
uvicorn, in this process) played as a gem-ts env, ``gem_ts.make("openenv:Remote-v0", url=...)``: the
gem-ts server (TypeScript) holds one OpenEnv WebSocket session per env. The peer counts what reached
it, so every step and reward gem-ts reports is checked against what OpenEnv's server saw and paid."""
import json
import random
import re
import socket
from typing import Any, Callable, Dict, List, Optional

import gem_ts
import pytest
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State

REMOTE = "openenv:Remote-v0"

# What OpenEnv's server saw, per env class: resets, steps and the rewards it paid.
SEEN: Dict[str, Dict[str, Any]] = {}


def _seen(name: str) -> Dict[str, Any]:
    return SEEN.setdefault(name, {"resets": 0, "steps": 0, "rewards": []})


class HiddenNumber(Environment):
    """A number 1..10 drawn from the reset's seed, found in four turns; counts what reaches it in SEEN."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    name = ""

    def __init__(self) -> None:
        super().__init__()
        self._state = State()
        self.target = self.turn = 0

    def _begin(self, seed: Optional[int], episode_id: Optional[str]) -> None:
        _seen(self.name)["resets"] += 1
        self.target, self.turn = random.Random(seed).randint(1, 10), 0
        self._state = State(episode_id=episode_id, step_count=0)

    def _judge(self, guess: int) -> Dict[str, Any]:
        """One turn of a guess: the reward, done and hint; counted as a step."""
        self.turn += 1
        self._state.step_count += 1
        _seen(self.name)["steps"] += 1
        if guess == self.target:
            return {"reward": 1.0, "done": True, "hint": "hit"}
        return {"reward": 0.0, "done": self.turn >= 4, "hint": "higher" if guess < self.target else "lower"}

    def _paid(self, obs: Observation) -> Observation:
        _seen(self.name)["rewards"].append(obs.reward)
        return obs

    @property
    def state(self) -> State:
        return self._state


class GuessAction(Action):
    message: str


class GuessObservation(Observation):
    text: str = ""


class GuessGame(HiddenNumber):
    """Text actions (``\\boxed{n}``) and a text observation, as OpenEnv's text envs have them."""

    name = "guess"

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> GuessObservation:
        self._begin(seed, episode_id)
        return GuessObservation(text="Guess a number between 1 and 10 in \\boxed{}; you have 4 turns.")

    def step(self, action: GuessAction, timeout_s: Optional[float] = None, **kwargs: Any) -> Observation:  # type: ignore[override]
        if "raise" in action.message:
            raise ValueError("the env failed on purpose")
        found = re.findall(r"\\boxed\{\s*(-?\d+)\s*\}", action.message)
        if not found:
            _seen(self.name)["steps"] += 1
            return self._paid(GuessObservation(text="No guess in \\boxed{}.", reward=-0.1, done=True))
        r = self._judge(int(found[-1]))
        text = f"Correct, it was {self.target}." if r["hint"] == "hit" else f"Turn {self.turn}: the number is {r['hint']}."
        return self._paid(GuessObservation(text=text, reward=r["reward"], done=r["done"], metadata={"turn": self.turn}))


class MoveAction(Action):
    """A structured action: two fields, neither of them text."""

    guess: int
    note: str = ""


class BoardObservation(Observation):
    """A structured observation: no ``text`` field."""

    hint: str = ""
    turn: int = 0


class StructuredGame(HiddenNumber):
    name = "structured"

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> BoardObservation:
        self._begin(seed, episode_id)
        return BoardObservation(hint="start", turn=0)

    def step(self, action: MoveAction, timeout_s: Optional[float] = None, **kwargs: Any) -> Observation:  # type: ignore[override]
        r = self._judge(action.guess)
        return self._paid(BoardObservation(hint=r["hint"], turn=self.turn, reward=r["reward"], done=r["done"]))


@pytest.fixture(scope="module")
def peers(serve_app: Callable[[Any], str]) -> Dict[str, str]:
    """OpenEnv's own servers, one per env class, in this process."""
    return {
        "guess": serve_app(create_app(GuessGame, GuessAction, GuessObservation, env_name="guess", max_concurrent_envs=64)),
        "structured": serve_app(create_app(StructuredGame, MoveAction, BoardObservation, env_name="structured", max_concurrent_envs=64)),
    }


def _bisect(obs: str, bounds: List[int], last: List[int]) -> int:
    if last and ("higher" in obs):
        bounds[0] = last[0] + 1
    elif last and ("lower" in obs):
        bounds[1] = last[0] - 1
    guess = (bounds[0] + bounds[1]) // 2
    last[:] = [guess]
    return guess


def test_a_game_played_through_gem_ts_counts_what_openenv_saw(peers: Dict[str, str]) -> None:
    before = dict(_seen("guess"), rewards=list(_seen("guess")["rewards"]))
    env = gem_ts.make(REMOTE, url=peers["guess"])
    episodes, steps, rewards = 0, 0, []
    for seed in (3, 4, 5, 6):
        obs, info = env.reset(seed=seed)
        assert obs.startswith("Guess a number")
        bounds, last, done = [1, 10], [], False
        while not done:
            obs, reward, terminated, truncated, info = env.step(f"\\boxed{{{_bisect(obs, bounds, last)}}}")
            steps += 1
            rewards.append(reward)
            done = terminated or truncated
            assert info["turn"] >= 1  # OpenEnv's metadata is gem-ts's info
        assert terminated and not truncated and reward == 1.0
        episodes += 1
    env.close()
    seen = _seen("guess")
    assert episodes == 4 and sum(rewards) == 4.0
    assert seen["resets"] - before["resets"] == 4
    assert seen["steps"] - before["steps"] == steps
    assert seen["rewards"][len(before["rewards"]) :] == rewards


def test_make_vec_of_several_openenv_sessions(peers: Dict[str, str]) -> None:
    before_steps, before_rewards = _seen("guess")["steps"], len(_seen("guess")["rewards"])
    with gem_ts.make_vec([REMOTE] * 4, url=peers["guess"], wrappers=["episode_tracking"], seed=10) as vec:
        obs, infos = vec.reset(seed=10)
        assert len(obs) == 4
        total_steps, total_reward = 0, 0.0
        for guess in (5, 8, 3):
            obs, rewards, terminated, truncated, infos = vec.step([f"\\boxed{{{guess}}}"] * 4)
            total_steps += 4
            total_reward += float(sum(rewards))
    assert _seen("guess")["steps"] - before_steps == total_steps
    assert sum(_seen("guess")["rewards"][before_rewards:]) == total_reward


def test_structured_actions_as_json_and_format_errors(peers: Dict[str, str]) -> None:
    before = _seen("structured")["steps"]
    env = gem_ts.make(REMOTE, url=peers["structured"], action_format="json")
    obs, _ = env.reset(seed=7)
    # No `text` field: the observation is the observation object (less metadata) as JSON.
    assert json.loads(obs) == {"hint": "start", "turn": 0}
    lo, hi, done, steps, total = 1, 10, False, 0, 0.0
    while not done:
        g = (lo + hi) // 2
        obs, reward, terminated, truncated, _ = env.step(json.dumps({"guess": g, "note": "bisect"}))
        steps += 1
        total += reward
        hint = json.loads(obs)["hint"]
        lo, hi = (g + 1, hi) if hint == "higher" else (lo, g - 1) if hint == "lower" else (lo, hi)
        done = terminated or truncated
    assert total == 1.0 and _seen("structured")["steps"] - before == steps
    # Not JSON, and JSON that OpenEnv's server refuses: a format error (-0.1, episode over), nothing played.
    for bad in ("guess 5", json.dumps({"guess": "five"})):
        env.reset(seed=7)
        played = _seen("structured")["steps"]
        obs, reward, terminated, truncated, info = env.step(bad)
        assert obs.startswith("Invalid action") and reward == -0.1 and terminated and "invalid_action" in info
        assert _seen("structured")["steps"] == played
    env.close()


def test_errors_name_the_url(peers: Dict[str, str]) -> None:
    env = gem_ts.make(REMOTE, url=peers["guess"])
    env.reset(seed=1)
    # The env raising inside OpenEnv's server: its EXECUTION_ERROR, as gem-ts's WORKER_FAILED.
    with pytest.raises(gem_ts.errors.WorkerFailedError, match=re.escape(peers["guess"]) + ".*EXECUTION_ERROR.*failed on purpose"):
        env.step("raise")
    env.close()
    # The text field this env does not have: OpenEnv's VALIDATION_ERROR, a configuration error.
    wrong = gem_ts.make(REMOTE, url=peers["guess"], action_field="answer")
    wrong.reset(seed=1)
    with pytest.raises(gem_ts.errors.InvalidRequestError, match="VALIDATION_ERROR"):
        wrong.step("\\boxed{1}")
    wrong.close()
    # Nothing listening there.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    down = gem_ts.make(REMOTE, url=f"http://127.0.0.1:{port}")
    with pytest.raises(gem_ts.errors.ServerUnavailableError, match=f"127.0.0.1:{port}"):
        down.reset()
    down.close()
    with pytest.raises(gem_ts.errors.InvalidOptionsError):
        gem_ts.make(REMOTE, url="ftp://nowhere")


def test_a_full_openenv_server_refuses_the_session_as_limit_exceeded(serve_app: Callable[[Any], str]) -> None:
    url = serve_app(create_app(GuessGame, GuessAction, GuessObservation, env_name="guess_one", max_concurrent_envs=1))
    first = gem_ts.make(REMOTE, url=url)
    first.reset(seed=1)
    second = gem_ts.make(REMOTE, url=url)
    with pytest.raises(gem_ts.errors.LimitExceededError, match=re.escape(url) + ".*CAPACITY_REACHED"):
        second.reset(seed=2)
    first.close()
    second.close()
