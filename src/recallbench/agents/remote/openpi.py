"""SceneMem against a policy served with openpi's WebSocket protocol (docs/vla.md).

``--policy openpi://HOST:PORT`` (or ``ws://HOST:PORT``, the same client with the ``raw``
observation map) runs ``OpenpiPolicy`` in each env worker: the card's ``reset``/``get_action``
over openpi's protocol as ``openpi_client.WebsocketClientPolicy`` speaks it, with recallbench's
own bounded connection and decoder (``openpi_connection``, ``wire``): what a server sends is
untrusted. Each request is the observation map's dict plus ``recallbench/*`` keys
(step, action_dim, seed), and, in a test's first request, the probe's memory (``memory/*``).
The first ``replan_steps`` actions of each returned chunk run open-loop. Its settings:
``openpi_settings``.

A refused connection, a dropped socket or a server silent for the reply timeout (per reply) is a
lost server (the test is left for ``--resume``); an error text, a malformed reply or a bad chunk
fails the test with the reason. After an error text the connection is dropped (openpi's server
closes it with 1011) and the next request connects again.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from recallbench.agents.remote.client import (
    PolicyServerLost,
    RemotePolicyError,
    ServedPolicy,
    observations_of,
    too_big,
)
from recallbench.agents.remote.openpi_connection import (
    OpenpiConnection,
    ProtocolError,
    check_chunk,
    lost_server,
)
from recallbench.agents.remote.openpi_settings import OpenpiSettings
from recallbench.agents.remote.presets import ChunkError
from recallbench.agents.remote.wire import MAX_MESSAGE_BYTES, WireError

# Request keys recallbench adds to the observation map's (documented in docs/vla.md).
STEP_KEY, ACTION_DIM_KEY = "recallbench/step", "recallbench/action_dim"
SEED_KEY = "recallbench/seed"
MEMORY_PATHS_KEY = "memory/video_paths"


class OpenpiPolicy(ServedPolicy):
    """The card's interface over one openpi connection per env worker (kept across tests)."""

    def __init__(self, settings: OpenpiSettings) -> None:
        self.settings = settings
        self.server_lost = None
        self.calls = 0  # server requests made (all tests)
        self._client: Any = None
        self._instruction = ""
        self._videos: list[str] = []
        self._memory: dict[tuple[str, ...], dict[str, np.ndarray]] = {}
        self._chunk: deque[np.ndarray] = deque()
        self._step = 0
        self._seed = 0
        self._convention = "upright"  # the env's image convention, read at each test's start
        self._layout: dict[str, tuple[int, int]] | None = None  # its action parts

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.server_lost = None
        self._instruction = instruction
        self._videos = [str(p) for p in video_paths]
        self._chunk.clear()
        self._step = 0
        # One draw from the generator the harness seeded for this test: a stochastic server
        # policy can seed itself per rollout from it.
        self._seed = int(np.random.randint(0, 2**31 - 1))

    def get_action(self, env: Any) -> np.ndarray:
        action_dim = int(env.action_dim)
        if not self._chunk:
            if self._step == 0:
                self._read_env(env)
            obs = self._wanted(observations_of(env, self._step == 0))
            request = self.settings.obs_map.request(obs, self._instruction, self._convention)
            request.update({STEP_KEY: self._step, ACTION_DIM_KEY: action_dim,
                            SEED_KEY: self._seed})
            if self._step == 0:
                request.update(self._memory_keys())
            actions = self.settings.action_map
            takes = ("env.action_dim is" if actions.width is None
                     else f"the action map (preset {self.settings.preset}) takes")
            chunk = check_chunk(self._infer(request), actions.expected_width(action_dim), takes)
            try:
                chunk = actions.apply(chunk, action_dim, self._layout)
            except ChunkError as exc:
                raise ProtocolError(str(exc)) from None
            self._chunk.extend(chunk[: self.settings.replan_steps])
        self._step += 1
        return self._chunk.popleft()

    def _read_env(self, env: Any) -> None:
        """The env's image convention and, for a map placing its reply by named parts, its
        action layout (``env_layout``), read at a test's first step."""
        from recallbench.benchmarks.scenemem.env_layout import action_parts, image_convention

        self._convention = image_convention(env)
        self._layout = None
        if self.settings.action_map.named:
            try:
                self._layout = action_parts(env)
            except ValueError as exc:
                raise ProtocolError(str(exc)) from None

    def rollout_info(self) -> dict[str, Any] | None:
        """What the test's record keeps of the maps it applied: the env's image convention and
        the flip applied to each request image (when images are sent), and the env slots the
        reply's columns went to (when an action map places them); None when neither applies, so
        a pass-through run records what the in-process policy records."""
        info: dict[str, Any] = {}
        if self.settings.obs_map.images:
            info = {"image_convention": self._convention,
                    "image_flips": self.settings.obs_map.flips(self._convention)}
        actions = self.settings.action_map
        if actions.width is not None:
            try:
                slots, held = actions.resolve(self._layout)
            except ChunkError:
                return info or None
            info["action_slots"] = list(slots)
            info["held"] = {str(k): v for k, v in sorted(held.items())}
        return info or None

    def _wanted(self, obs: dict[str, Any]) -> dict[str, Any]:
        """Under the raw map, only the ``observation_keys`` a recallbench server's metadata
        asks for (less to copy per step); a key the env lacks fails the test, naming it."""
        self._connected()
        keys = self._client.metadata.get("observation_keys") \
            if self.settings.obs_map.passed == "*" else None
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            return obs
        missing = [k for k in keys if k not in obs]
        if missing:
            raise RemotePolicyError(f"the server asks for observations the env lacks: "
                                    f"{missing}; the env has {sorted(obs)}")
        return {k: obs[k] for k in keys}

    def _connected(self) -> None:
        if self._client is None:
            try:
                self._client = OpenpiConnection(self.settings.url)
            except WireError as exc:
                raise ProtocolError(f"protocol error: the server's metadata: {exc}") from None
            except Exception as exc:  # refused, reset, websockets' handshake errors
                if too_big(exc):
                    raise ProtocolError("protocol error: the server's metadata is over the "
                                        f"{MAX_MESSAGE_BYTES}-byte limit") from None
                raise self._lost(exc) from None

    def _lost(self, exc: BaseException) -> PolicyServerLost:
        self._drop()
        lost = lost_server(self.settings.url, exc)
        self.server_lost = str(lost)
        return lost

    def _memory_keys(self) -> dict[str, Any]:
        if self.settings.memory == "paths":
            return {MEMORY_PATHS_KEY: list(self._videos)}
        if self.settings.memory == "none":
            return {}
        key = tuple(self._videos)
        if key not in self._memory:  # a worker's tests share their scenario's videos
            self._memory = {key: memory_frames(self._videos, self.settings.memory_frames,
                                               self.settings.memory_size)}
        return dict(self._memory[key])

    def _infer(self, request: dict[str, Any]) -> Any:
        from websockets.exceptions import ConnectionClosed

        self._connected()
        try:
            self.calls += 1
            return self._client.infer(request)
        except RemotePolicyError:
            # An error text: openpi's server closes the socket after it (1011), so the next
            # test connects again instead of finding a dead socket ("server lost").
            self._drop()
            raise
        except WireError as exc:
            raise ProtocolError(f"protocol error: the reply is not openpi msgpack ({exc})") \
                from None
        except (ConnectionClosed, OSError, EOFError) as exc:
            if too_big(exc):  # websockets closed it: a reply over max_size fails the test
                self._drop()
                raise ProtocolError("protocol error: a reply over the "
                                    f"{MAX_MESSAGE_BYTES}-byte limit") from None
            raise self._lost(exc) from None
        except TypeError as exc:  # a request value the wire cannot carry
            raise ProtocolError(f"protocol error: {exc}") from None

    def _drop(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None

    def close(self) -> None:
        self._drop()


def memory_frames(paths: list[str], k: int, size: int) -> dict[str, np.ndarray]:
    """``memory/<camera>``: K evenly subsampled frames of each video, resized with padding to
    size x size, uint8 (K, size, size, 3)."""
    from openpi_client import image_tools

    from recallbench.video.reader import VideoFrames, count_frames
    from recallbench.video.sampling import subsample_indices

    out = {}
    for path in paths:
        offered = subsample_indices(count_frames(path), k).tolist()
        frames = np.stack(VideoFrames(path, offered, stamp=False).frames())
        name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        out[f"memory/{name}"] = np.ascontiguousarray(image_tools.resize_with_pad(
            frames, size, size))
    return out

