"""A NeMo Gym resources server whose sessions are gem-ts envs.

One NeMo Gym session (the cookie the resources server's session middleware hands out) holds one
gem-ts env. ``/seed_session`` makes and resets it from the dataset row's ``env_id`` / ``seed`` /
``options`` / ``wrappers``; the ``/step`` tool endpoint is one gem-ts step; ``/verify`` returns the
episode's summed gem-ts reward. A final assistant message on an unfinished episode is stepped as
its last action, so single-turn envs (math, QA) need no tool call at all.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

import gem_ts
import gem_ts.aio
from fastapi import FastAPI, HTTPException, Request
from gem_ts_adapter_kit.rows import EnvRow, RowError
from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from nemo_gym.server_utils import SESSION_ID_KEY
from pydantic import BaseModel, ConfigDict, PrivateAttr

STEP_TOOL_NAME = "step"


class GemTsResourcesServerConfig(BaseResourcesServerConfig):
    # A running gem-ts server (``tcp://HOST:PORT``); None starts a local one with the first session.
    gem_ts_endpoint: Optional[str] = None


class GemTsSeedSessionRequest(BaseSeedSessionRequest):
    # The agent posts the whole dataset row (its responses_create_params and any other columns).
    model_config = ConfigDict(extra="allow")

    env_id: str
    seed: int
    options: Union[Dict[str, Any], str, None] = None
    wrappers: Union[List[str], str, None] = None


class GemTsSeedSessionResponse(BaseSeedSessionResponse):
    env_id: str
    seed: int
    observation: str


class GemTsStepRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: str


class GemTsStepResponse(BaseModel):
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    step: int


class GemTsVerifyRequest(BaseVerifyRequest):
    model_config = ConfigDict(extra="allow")


class GemTsVerifyResponse(BaseVerifyResponse):
    model_config = ConfigDict(extra="allow")

    env_id: str
    seed: int
    steps: int
    rewards: List[float]
    terminated: bool
    truncated: bool
    # True when verify stepped the final assistant message itself (the episode was not over yet).
    stepped_final_message: bool


@dataclass
class _Episode:
    env: Any
    row: EnvRow
    rewards: List[float] = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated


def step_tool() -> Dict[str, Any]:
    """The Responses API function tool a dataset row offers the model: one call = one gem-ts step."""
    return {
        "type": "function",
        "name": STEP_TOOL_NAME,
        "description": "Send your next move or answer to the environment; returns its observation and reward.",
        "parameters": {
            "type": "object",
            "properties": {"action": {"type": "string", "description": "the text the environment receives"}},
            "required": ["action"],
            "additionalProperties": False,
        },
        "strict": True,
    }


def final_message_text(response: Any) -> str:
    """The text of the last assistant message in a NeMo Gym response ('' when there is none)."""
    for item in reversed(list(getattr(response, "output", None) or [])):
        if getattr(item, "type", None) == "message" and getattr(item, "role", None) == "assistant":
            parts = getattr(item, "content", None) or []
            return "".join(getattr(p, "text", "") or "" for p in parts)
    return ""


class GemTsResourcesServer(SimpleResourcesServer):
    # The envs live in the gem-ts server (a local child process, or gem_ts_endpoint); no Ray needed.
    ray_enabled = False
    config: GemTsResourcesServerConfig

    _client: Optional[gem_ts.aio.AsyncClient] = PrivateAttr(default=None)
    _client_lock: Optional[asyncio.Lock] = PrivateAttr(default=None)
    _episodes: Dict[str, _Episode] = PrivateAttr(default_factory=dict)

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        app.post(f"/{STEP_TOOL_NAME}")(self.step)
        return app

    async def _gem(self) -> gem_ts.aio.AsyncClient:
        if self._client_lock is None:
            self._client_lock = asyncio.Lock()
        async with self._client_lock:
            if self._client is None:
                self._client = await gem_ts.aio.connect(self.config.gem_ts_endpoint)
            return self._client

    async def _drop(self, key: str) -> None:
        episode = self._episodes.pop(key, None)
        if episode is not None:
            await episode.env.close()

    def _episode(self, request: Request, what: str) -> _Episode:
        episode = self._episodes.get(request.session.get(SESSION_ID_KEY, ""))
        if episode is None:
            raise HTTPException(409, f"{what} before /seed_session: this NeMo Gym session has no gem-ts env")
        return episode

    async def seed_session(self, request: Request, body: GemTsSeedSessionRequest) -> GemTsSeedSessionResponse:  # type: ignore[override, unused-ignore]
        try:
            row = EnvRow.from_value(body.model_dump())
        except RowError as err:
            raise HTTPException(422, f"bad gem-ts row: {err}") from None
        client = await self._gem()
        key = request.session[SESSION_ID_KEY]
        await self._drop(key)  # a session reseeded starts a new episode
        try:
            if row.wrappers:
                # As gem_ts.make does for one env: no autoreset, so the last step's observation is its own.
                pool = await client.make_vec(
                    row.env_id, wrappers=row.wrappers, num_envs=1, autoreset_mode="disabled", **row.options
                )
                env = pool.env(0, owns_handle=True)
            else:
                env = await client.make(row.env_id, **row.options)
        except gem_ts.GemError as err:
            raise HTTPException(400, f"cannot make gem-ts env {row.env_id!r}: {err}") from None
        try:
            observation, _ = await env.reset(seed=row.seed)
        except gem_ts.GemError as err:
            await env.close()
            raise HTTPException(400, f"cannot reset gem-ts env {row.env_id!r} with seed {row.seed}: {err}") from None
        self._episodes[key] = _Episode(env=env, row=row)
        return GemTsSeedSessionResponse(env_id=row.env_id, seed=row.seed, observation=observation)

    async def _step(self, episode: _Episode, action: str) -> GemTsStepResponse:
        if episode.done:
            raise HTTPException(409, f"the {episode.row.env_id} episode is over; verify it or seed a new session")
        try:
            observation, reward, terminated, truncated, _ = await episode.env.step(action)
        except gem_ts.GemError as err:
            raise HTTPException(400, f"gem-ts step failed: {err}") from None
        episode.rewards.append(float(reward))
        episode.terminated, episode.truncated = bool(terminated), bool(truncated)
        return GemTsStepResponse(
            observation=observation, reward=float(reward), terminated=episode.terminated,
            truncated=episode.truncated, step=len(episode.rewards),
        )  # fmt: skip

    async def step(self, request: Request, body: GemTsStepRequest) -> GemTsStepResponse:
        episode = self._episode(request, "step")
        async with episode.lock:
            return await self._step(episode, body.action)

    async def verify(self, request: Request, body: GemTsVerifyRequest) -> GemTsVerifyResponse:  # type: ignore[override, unused-ignore]
        episode = self._episode(request, "verify")
        stepped = False
        async with episode.lock:
            final = final_message_text(body.response)
            if not episode.done and final:
                await self._step(episode, final)
                stepped = True
        await self._drop(request.session[SESSION_ID_KEY])
        # The row's own columns (env_id, seed, options, ...) ride along in the body; ours win.
        return GemTsVerifyResponse.model_validate(
            body.model_dump()
            | {
                "reward": sum(episode.rewards),
                "env_id": episode.row.env_id,
                "seed": episode.row.seed,
                "steps": len(episode.rewards),
                "rewards": list(episode.rewards),
                "terminated": episode.terminated,
                "truncated": episode.truncated,
                "stepped_final_message": stepped,
            }
        )
