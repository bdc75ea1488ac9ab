"""The client side of version 1's typed messages, kept as a superset of openpi's protocol for
what openpi has no word for: FindingDory's LL navigation policies (``--ll-policy ws://``,
``RemoteLLPolicy``) and the server's ``stats``. SceneMem's ``--policy ws://`` and
``openpi://`` go through ``openpi_client`` (``remote.openpi``).

A lost server (refused connection, dropped socket, reply timeout) is not the policy's fault:
``server_lost`` says why, and the runner leaves such a test unrecorded for ``--resume``.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from recallbench.agents.remote.wire import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    WireError,
    pack,
    unpack,
)
from recallbench.executor.results import ERROR_CAP, cut_text

REMOTE_SCHEMES = ("ws://", "wss://")
# A forward pass of a large model on a busy GPU may take seconds; a server silent for this long
# is treated as gone (the test's own --test_timeout still bounds the whole rollout).
DEFAULT_REPLY_TIMEOUT = 120.0


def is_remote_policy(ref: str | None) -> bool:
    return ref is not None and ref.startswith(REMOTE_SCHEMES)


class RemotePolicyError(RuntimeError):
    """The server's policy raised: the policy's fault, the test fails with this message (cut to
    ``ERROR_CAP``: the server chose it)."""

    def __init__(self, message: str) -> None:
        super().__init__(cut_text(message, ERROR_CAP))


class PolicyServerLost(ConnectionError):
    """The server cannot be reached or went away mid-rollout: not the policy's fault."""

    reason = ""  # what the transport said, e.g. "ConnectionRefusedError: ..."


class ServedPolicy:
    """A policy whose decisions come from a server: ``server_lost`` says why the last rollout
    lost it (the runner then leaves the test unrecorded for ``--resume``)."""

    server_lost: str | None = None


def too_big(exc: BaseException) -> bool:
    """Did websockets close the connection because a message was over ``max_size``?"""
    return getattr(getattr(exc, "sent", None), "code", None) == 1009


def error_text(text: str) -> str:
    """A server's error text as a test's error: a traceback (openpi's server sends
    ``traceback.format_exc()``) becomes its last line and its innermost ``File ...`` line, found
    from the end without splitting the whole text (RemotePolicyError cuts it to ERROR_CAP);
    any other text is kept as it is."""
    text = text.rstrip()
    if not text.startswith("Traceback"):
        return text
    last = text.rpartition("\n")[2].strip()
    at = text.rfind('\n  File "', 0, len(text) - len(last))
    if at < 0:
        return last
    where = text[at + 3: text.find("\n", at + 1)].strip()
    return f"{last} ({cut_text(where, 300)})"


def observations_of(env: Any, first_step: bool) -> dict[str, Any]:
    """The env's observation dict (robosuite's ``_get_observations``; the built-in world's is the
    same). On a rollout's first step robosuite is asked to refresh it, since the start state was
    loaded after its last update; later steps read what ``env.step`` just computed."""
    if first_step:
        with contextlib.suppress(TypeError):  # envs whose method takes no force_update
            return env._get_observations(force_update=True)
    return env._get_observations()


class RemotePolicy(ServedPolicy):
    """``reset``/``get_action`` over one WebSocket connection per env worker (kept across tests)."""

    def __init__(self, url: str, reply_timeout: float = DEFAULT_REPLY_TIMEOUT) -> None:
        self.url = url
        self.reply_timeout = reply_timeout
        self.server_lost: str | None = None  # why the last rollout lost its server, if it did
        self._ws: Any = None
        self._hello: dict[str, Any] = {}
        self._stack = contextlib.ExitStack()
        self._keys: list[str] | None = None  # the observations the server asked for
        self._step = 0

    # -- the card's interface -------------------------------------------------------------
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.server_lost = None
        self._step = 0
        self._call({"type": "reset", "instruction": instruction,
                    "video_paths": [str(p) for p in video_paths],
                    # One draw from the generator the harness seeded for this test: a
                    # stochastic server policy can seed itself per rollout from it.
                    "seed": int(np.random.randint(0, 2**31 - 1))})

    def get_action(self, env: Any) -> np.ndarray:
        obs = observations_of(env, self._step == 0)
        if self._keys is not None:
            missing = [k for k in self._keys if k not in obs]
            if missing:
                raise RemotePolicyError(f"the server asks for observations the env lacks: "
                                        f"{missing}; the env has {sorted(obs)}")
            obs = {k: obs[k] for k in self._keys}
        else:
            obs = {k: v for k, v in obs.items() if isinstance(v, np.ndarray)}
        reply = self._call({"type": "act", "step": self._step, "action_dim": int(env.action_dim),
                            "observations": obs})
        self._step += 1
        return np.asarray(reply["action"])

    # -- transport ------------------------------------------------------------------------
    def hello(self) -> dict[str, Any]:
        """Connect (if not connected) and return the server's hello."""
        from websockets.sync.client import connect

        if self._ws is not None:
            return self._hello
        try:
            self._stack = contextlib.ExitStack()  # websockets >= 17.1 wants a context manager
            self._ws = self._stack.enter_context(connect(
                self.url, compression=None, max_size=MAX_MESSAGE_BYTES, open_timeout=10,
                close_timeout=1))
            # The server speaks first: its metadata (openpi's protocol), our hello.
            self._hello = self._receive()
        except RemotePolicyError:
            self._drop()
            raise
        except Exception as exc:
            self._drop()
            raise self._lost(exc) from None
        if self._hello.get("protocol") != PROTOCOL_VERSION:
            self._drop()
            raise RemotePolicyError(f"{self.url} speaks protocol "
                                    f"{cut_text(str(self._hello.get('protocol')), 40)}, this "
                                    f"client {PROTOCOL_VERSION}")
        keys = self._hello.get("observation_keys")
        self._keys = keys if isinstance(keys, list) and all(
            isinstance(k, str) for k in keys) else None
        return self._hello

    def _call(self, message: dict[str, Any]) -> dict[str, Any]:
        self.hello()
        try:
            self._ws.send(pack(message))
            reply = self._receive()
        except RemotePolicyError:
            self._drop()
            raise
        except Exception as exc:
            self._drop()
            raise self._lost(exc) from None
        if reply.get("type") == "error":
            raise RemotePolicyError(f"server policy: {reply.get('message')}")
        return reply

    def _receive(self) -> dict[str, Any]:
        """The next message, decoded by ``wire.unpack``'s checks: one that breaks them, or is
        over ``max_size``, is the server's fault (RemotePolicyError), not a lost server."""
        try:
            data = self._ws.recv(timeout=self.reply_timeout)
        except Exception as exc:
            if too_big(exc):
                raise RemotePolicyError(f"protocol error: a message over the "
                                        f"{MAX_MESSAGE_BYTES}-byte limit") from None
            raise
        if isinstance(data, str):
            raise RemotePolicyError(f"server: {error_text(data)}")
        try:
            return unpack(data)
        except WireError as exc:
            raise RemotePolicyError(f"protocol error: {exc}") from None

    def _lost(self, exc: Exception) -> PolicyServerLost:
        reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        self.server_lost = f"policy server {self.url} lost ({reason})"
        lost = PolicyServerLost(self.server_lost)
        lost.reason = reason
        return lost

    def _drop(self) -> None:
        if self._ws is not None:
            with contextlib.suppress(Exception):
                self._stack.close()
        self._ws = None

    def close(self) -> None:
        self._drop()


class RemoteLLPolicy(RemotePolicy):
    """FindingDory's LL interface (``reset(env)``, ``act(pose, goal)``) against a served LL
    policy: each step sends the base pose and the goal (index, frame, recorded pose)."""

    @property
    def policy_name(self) -> str:
        """The served class's name, as the run log names an in-process LL policy."""
        name = str(self._hello.get("policy", "")).rpartition(":")[2]
        return cut_text(name, 200) or type(self).__name__

    def reset(self, env: Any) -> None:  # type: ignore[override]
        self.server_lost = None
        self._step = 0
        self._call({"type": "reset", "instruction": "", "video_paths": [], "seed": 0})

    def act(self, pose: np.ndarray, goal: Any) -> int:
        reply = self._call({"type": "act", "step": self._step, "action_dim": 1,
                            "observations": {"pose": np.asarray(pose, dtype=np.float64)},
                            "goal": {"index": int(goal.index), "frame": int(goal.frame),
                                     "pose": [float(v) for v in goal.pose]}})
        self._step += 1
        return int(np.asarray(reply["action"]).reshape(-1)[0])


def check_server(url: str, interface: str = "scenemem", flag: str = "--policy",
                 timeout: float = 10.0) -> dict[str, Any]:
    """The server's hello, or a one-line ValueError naming the flag (before any work)."""
    client = RemotePolicy(url, reply_timeout=timeout)
    try:
        hello = client.hello()
    except PolicyServerLost as exc:
        raise ValueError(f"{flag} {url}: no policy server answers ({exc.reason})") from None
    except RemotePolicyError as exc:
        raise ValueError(f"{flag} {url}: {exc}") from None
    finally:
        client.close()
    served = hello.get("interface", "scenemem")
    if served != interface:
        raise ValueError(f"{flag} {url}: the server hosts a {cut_text(str(served), 40)} "
                         f"policy ({cut_text(str(hello.get('policy')), 200)}), not a "
                         f"{interface} one")
    return hello
