"""The server side: one policy, many env workers, concurrent requests batched into one forward.

It speaks openpi's protocol (an unmodified ``openpi_client.WebsocketClientPolicy`` can call it):
metadata on connect, an observation dict in, ``{"actions": (horizon, action_dim)}`` out, an
error as a text message (the connection stays open, unlike openpi's server, which closes it).
Every request is checked (``request_check``) before it reaches the policy or a batch. Version 1's
typed messages (``{"type": ...}``) remain for LL policies and ``stats``.

A policy class that offers ``get_action_batch(requests: list[ActionRequest]) -> Sequence[action]``
is constructed once; concurrent requests go to it together (``batcher``). Per-rollout memory
lives in ``request.state`` (a dict the server keeps per rollout, empty at each reset).

A card-interface policy (``reset`` + ``get_action(env)``, no batched method) gets one instance per
connected env worker, since it keeps its rollout's state in ``self``; its ``env`` is an
``ObservationEnv`` holding the observations the client sent. What a served class must offer and
what it receives: ``policy_contract``.
"""

from __future__ import annotations

import asyncio
import itertools
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from recallbench.agents.remote.batcher import Batcher
from recallbench.agents.remote.policy_contract import (
    BATCH_METHOD,
    ActionRequest,  # still importable from here, its home before the split (user policies)
    ObservationEnv,
    policy_interface,
    served_shape,
)
from recallbench.agents.remote.request_check import BadRequest, check_request
from recallbench.agents.remote.wire import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, pack, unpack

TYPED = ("hello", "stats", "reset", "act")  # version 1's messages


@dataclass
class _Session:
    id: int
    policy: Any = None  # card-interface policies: this worker's own instance
    rollout: ActionRequest | None = None  # the last request's context (instruction, state)


def _describe(where: str, exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" at {frame[0].filename}:{frame[0].lineno}" if frame else ""
    return f"{where} raised {type(exc).__name__}: {exc}{at}"


class PolicyServer:
    """Serves ``policy_class`` to any number of WebSocket clients (``handler`` per connection)."""

    def __init__(self, policy_class: type, name: str, *, max_batch: int = 64,
                 batch_wait: float = 0.005, action_horizon: int | None = None) -> None:
        self.policy_class = policy_class
        self.name = name
        self.interface = policy_interface(policy_class)
        self.action_horizon, self.action_dim = served_shape(policy_class, action_horizon)
        self.batched = callable(getattr(policy_class, BATCH_METHOD, None))
        self.shared = policy_class() if self.batched else None  # the one model
        self.stats = {"forward_calls": 0, "requests": 0, "max_batch": 0, "sessions": 0}
        self._ids = itertools.count(1)
        self._in_rollout: set[int] = set()
        self.batcher = Batcher(self.shared, max_batch, batch_wait, self._in_rollout,
                               self._count_forward)
        self._card_calls = ThreadPoolExecutor(8, thread_name_prefix="policy")

    def hello(self) -> dict[str, Any]:
        """The metadata every connection receives first (openpi clients keep it)."""
        return {"type": "hello", "protocol": PROTOCOL_VERSION, "server": "recallbench",
                "policy": self.name, "interface": self.interface, "batched": self.batched,
                "observation_keys": getattr(self.policy_class, "observation_keys", None),
                # as openpi servers advertise their model's chunk: every reply has this many
                "action_horizon": self.action_horizon, "action_dim": self.action_dim}

    async def handler(self, websocket: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        session = _Session(next(self._ids))
        self.stats["sessions"] += 1
        try:
            await websocket.send(pack(self.hello()))
            async for data in websocket:
                reply: Any
                try:
                    msg = unpack(data)
                except Exception as exc:  # a malformed message: said, never fatal
                    reply = f"bad message: {exc}"
                else:
                    try:
                        if isinstance(msg.get("type"), str):  # version 1 (documented)
                            reply = await self._typed(session, msg)
                        else:
                            reply = await self._infer(session, msg)
                    except Exception as exc:  # a request no check foresaw: said, never fatal
                        reply = f"bad request: {type(exc).__name__}: {str(exc)[:200]}"
                await websocket.send(_sized(reply))
        except ConnectionClosed:
            pass
        finally:
            self._in_rollout.discard(session.id)

    async def _infer(self, session: _Session, obs: dict[str, Any]) -> Any:
        """One openpi request: an observation dict in, ``{"actions": (action_horizon, dim)}``
        or an error text out. The ``recallbench/*`` keys are optional (openpi's own clients
        send none): without ``recallbench/step`` a rollout starts at the session's first
        request or a new ``prompt`` and ``step`` counts its requests; without
        ``recallbench/action_dim`` the width is the server's (``served_shape``)."""
        try:
            check_request(obs)
        except BadRequest as exc:
            return f"bad request: {exc}"
        prompt, rollout = str(obs.get("prompt", "")), session.rollout
        if "recallbench/step" in obs:
            step = int(obs["recallbench/step"])
            new = step == 0 or rollout is None
        else:
            new = rollout is None or prompt != rollout.instruction
            step = 0 if new or rollout is None else rollout.step + 1
        if new:
            paths = obs.get("memory/video_paths", [])
            reply = await self._reset(session, {
                "instruction": prompt, "video_paths": paths if isinstance(paths, list) else [],
                "seed": int(obs.get("recallbench/seed", 0))})
            if reply.get("type") == "error":
                return str(reply["message"])
        assert session.rollout is not None
        session.rollout.step = step
        dim = int(obs.get("recallbench/action_dim", self.action_dim))
        observations = {k: v for k, v in obs.items() if not k.startswith("recallbench/")}
        reply = await self._act(session, {"step": step, "observations": observations,
                                          "action_dim": dim})
        if reply.get("type") == "error":
            return str(reply["message"])
        chunk = np.atleast_2d(reply["action"])
        if self.action_horizon is None:
            return {"actions": chunk}
        if chunk.ndim != 2 or chunk.shape[0] < self.action_horizon:
            return (f"the policy returned actions of shape {chunk.shape}; this server replies "
                    f"chunks of {self.action_horizon} (action_horizon)")
        return {"actions": chunk[: self.action_horizon]}

    async def _typed(self, session: _Session, msg: dict[str, Any]) -> dict[str, Any]:
        try:
            return await self._dispatch(session, msg)
        except Exception as exc:
            return {"type": "error", "message": f"bad message: {exc}"}

    async def _dispatch(self, session: _Session, msg: dict[str, Any]) -> dict[str, Any]:
        kind = msg["type"]
        if kind == "hello":
            return self.hello()
        if kind == "stats":
            return {"type": "stats", **self.stats}
        if kind == "reset":
            return await self._reset(session, msg)
        if kind == "act":
            if session.rollout is None:
                return {"type": "error", "message": "act before reset"}
            return await self._act(session, msg)
        return {"type": "error", "message": f"unknown message type {kind!r}"}

    async def _reset(self, session: _Session, msg: dict[str, Any]) -> dict[str, Any]:
        session.rollout = ActionRequest(session.id, str(msg["instruction"]),
                                        [str(p) for p in msg["video_paths"]], int(msg["seed"]),
                                        0, 0, {})
        self._in_rollout.add(session.id)
        if self.batched:
            return {"type": "ok"}
        loop = asyncio.get_running_loop()
        if session.policy is None:
            try:
                session.policy = await loop.run_in_executor(self._card_calls, self.policy_class)
            except Exception as exc:
                return {"type": "error", "message": _describe("policy constructor", exc)}
        try:
            if self.interface == "ll":  # reset(env): a served LL policy gets no world
                await loop.run_in_executor(self._card_calls, session.policy.reset,
                                           ObservationEnv({}, 0))
            else:
                await loop.run_in_executor(self._card_calls, session.policy.reset,
                                           session.rollout.instruction,
                                           session.rollout.video_paths)
        except Exception as exc:
            return {"type": "error", "message": _describe("policy.reset", exc)}
        return {"type": "ok"}

    async def _act(self, session: _Session, msg: dict[str, Any]) -> dict[str, Any]:
        rollout = session.rollout
        assert rollout is not None
        request = ActionRequest(session.id, rollout.instruction, rollout.video_paths,
                                rollout.seed, int(msg["step"]), int(msg["action_dim"]),
                                dict(msg["observations"]), rollout.state)
        self.stats["requests"] += 1
        try:
            if self.interface == "ll":
                self._count_forward(1)
                action = await asyncio.get_running_loop().run_in_executor(
                    self._card_calls, _ll_act, session.policy, request, msg["goal"])
            elif self.batched:
                action = await self.batcher.action(request)
            else:
                self._count_forward(1)
                env = ObservationEnv(request.observations, request.action_dim)
                action = await asyncio.get_running_loop().run_in_executor(
                    self._card_calls, session.policy.get_action, env)
            return {"type": "action", "action": np.asarray(action, dtype=np.float64)}
        except Exception as exc:
            where = "policy.act" if self.interface == "ll" else "policy.get_action"
            where = f"policy.{BATCH_METHOD}" if self.batched else where
            return {"type": "error", "message": _describe(where, exc)}

    def _count_forward(self, size: int) -> None:
        self.stats["forward_calls"] += 1
        self.stats["max_batch"] = max(self.stats["max_batch"], size)


def _sized(reply: Any) -> bytes | str:
    """The reply as sent: packed, or an error text when it cannot be packed or is too big for
    the peer (checked here, before sending, not by a dropped connection)."""
    if isinstance(reply, str):
        return reply
    try:
        data = pack(reply)
    except Exception as exc:
        return f"the policy's reply cannot be sent: {exc}"
    if len(data) > MAX_MESSAGE_BYTES:
        return f"the policy's reply is {len(data)} bytes, over the {MAX_MESSAGE_BYTES} limit"
    return data


def _ll_act(policy: Any, request: ActionRequest, goal: dict[str, Any]) -> list[int]:
    """One LL step: ``act(pose, LLGoal)`` -> the discrete action, as a 1-element action."""
    from recallbench.agents.ll_policies import LLGoal

    target = LLGoal(int(goal["index"]), int(goal["frame"]),
                    tuple(float(v) for v in goal["pose"]))  # type: ignore[arg-type]
    return [int(policy.act(np.asarray(request.observations["pose"], dtype=float), target))]


async def serve(server: PolicyServer, host: str, port: int,
                ready: Callable[[str], None] = print) -> None:
    """Serve until cancelled; ``ready`` gets the URL once the port listens (port 0: any free)."""
    from websockets.asyncio.server import serve as ws_serve

    async with ws_serve(server.handler, host, port, compression=None,
                        max_size=MAX_MESSAGE_BYTES) as ws_server:
        bound = next(iter(ws_server.sockets)).getsockname()[1]
        ready(f"ws://{host}:{bound}")
        await asyncio.get_running_loop().create_future()  # forever
