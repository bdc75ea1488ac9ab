"""SceneMem against a policy served with openpi's WebSocket protocol (docs/vla.md).

``--policy openpi://HOST:PORT`` (or ``ws://HOST:PORT``, the same client with the ``raw``
observation map) runs ``OpenpiPolicy`` in each env worker: the card's ``reset``/``get_action``
over openpi's protocol as ``openpi_client.WebsocketClientPolicy`` speaks it, with recallbench's
own bounded connection and decoder (``wire``): what a server sends is untrusted. Each
request is the observation map's dict plus ``recallbench/*`` keys
(step, action_dim, seed), and, in a test's first request, the probe's memory (``memory/*``).
The first ``replan_steps`` actions of each returned chunk run open-loop.

A refused connection, a dropped socket or a server silent for the reply timeout (per reply) is a
lost server (the test is left for ``--resume``); an error text, a malformed reply or a bad chunk
fails the test with the reason. After an error text the connection is dropped (openpi's server
closes it with 1011) and the next request connects again.
"""

from __future__ import annotations

import contextlib
import math
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from recallbench.agents.remote.client import (
    DEFAULT_REPLY_TIMEOUT,
    PolicyServerLost,
    RemotePolicyError,
    ServedPolicy,
    error_text,
    observations_of,
    too_big,
)
from recallbench.agents.remote.obs_map import ObsMap
from recallbench.agents.remote.presets import (
    PRESETS,
    RAW_PRESET,
    ActionMap,
    ChunkError,
    resolve,
)
from recallbench.agents.remote.wire import MAX_MESSAGE_BYTES, WireError, pack, unpack
from recallbench.executor.results import cut_text

OPENPI_SCHEME = "openpi://"  # the others (ws://, wss://): agents.transports
DEFAULT_REPLAN_STEPS = 5  # openpi's LIBERO/RoboCasa clients run 5 of each chunk open-loop
DEFAULT_MEMORY_FRAMES = 8
MEMORY_MODES = ("frames", "paths", "none")
POLICY_ARGS = ("preset", "map", "obs_map", "replan_steps", "memory", "memory_frames",
               "memory_size")
# Request keys recallbench adds to the observation map's (documented in docs/vla.md).
STEP_KEY, ACTION_DIM_KEY = "recallbench/step", "recallbench/action_dim"
SEED_KEY = "recallbench/seed"
MEMORY_PATHS_KEY = "memory/video_paths"
# What a server may send: metadata under 1 MiB (openpi's are a few keys); a chunk of at most
# MAX_HORIZON actions (openpi's models return 10 to 50).
MAX_METADATA_BYTES = 1024 * 1024
MAX_HORIZON = 1024
# What the manifest keeps of the metadata (``stored_json``): at most ~2 MB of JSON.
STORED_TEXT, STORED_CONTAINER, STORED_DEPTH, STORED_ITEMS = 1000, 64, 8, 2000


class ProtocolError(RuntimeError):
    """The server answered something that is not an action chunk: fails this test only."""


@dataclass(frozen=True)
class OpenpiSettings:
    url: str  # ws://HOST:PORT
    obs_map: ObsMap
    replan_steps: int = DEFAULT_REPLAN_STEPS
    memory: str = "frames"
    memory_frames: int = DEFAULT_MEMORY_FRAMES
    memory_size: int = 224
    action_map: ActionMap = ActionMap()  # reply columns -> env slots (presets.py)
    preset: str = "default"

    def describe(self) -> dict[str, Any]:
        """What the manifest records (beside the server's metadata)."""
        return {"url": self.url, "preset": self.preset, "obs_map": self.obs_map.describe(),
                "action_map": self.action_map.describe(),
                "replan_steps": self.replan_steps, "memory": self.memory,
                "memory_frames": self.memory_frames, "memory_size": self.memory_size}


def openpi_settings(ref: str, args: dict[str, Any]) -> OpenpiSettings:
    """``--policy`` and its ``--policy-arg`` values, checked (one-line ValueError)."""
    unknown = sorted(set(args) - set(POLICY_ARGS))
    if unknown:
        raise ValueError(f"--policy-arg: unknown key(s) {unknown} for a served policy; known: "
                         f"{', '.join(POLICY_ARGS)}")
    url = "ws://" + ref.removeprefix(OPENPI_SCHEME) if ref.startswith(OPENPI_SCHEME) else ref
    openpi = ref.startswith(OPENPI_SCHEME)
    name, preset = resolve(_text(args, "preset"), _text(args, "map"), _text(args, "obs_map"),
                           PRESETS["robocasa"] if openpi else RAW_PRESET)
    # ws:// keeps what recallbench's own protocol always sent: the paths (same file system)
    memory = args.get("memory", "frames" if openpi else "paths")
    if memory not in MEMORY_MODES:
        raise ValueError(f"--policy-arg memory={memory}: one of {', '.join(MEMORY_MODES)}")
    ints = {}
    for arg, default, low in (("replan_steps", preset.replan_steps, 1),
                               ("memory_frames", DEFAULT_MEMORY_FRAMES, 1),
                               ("memory_size", 224, 8)):
        value = args.get(arg, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 4096:
            raise ValueError(f"--policy-arg {arg}={value}: an integer in {low}..4096")
        ints[arg] = value
    return OpenpiSettings(url, preset.obs_map, memory=memory, action_map=preset.actions,
                          preset=name, **ints)


def _text(args: dict[str, Any], name: str) -> str | None:
    return None if args.get(name) is None else str(args[name])


class _Connection:
    """One openpi connection, as ``openpi_client.WebsocketClientPolicy`` speaks it (metadata on
    connect, msgpack-numpy requests and replies, an error as text), but bounded: the socket's
    ``max_size``, a reply timeout, and every message decoded by ``wire.unpack``'s checks."""

    def __init__(self, url: str, timeout: float = DEFAULT_REPLY_TIMEOUT) -> None:
        from websockets.sync.client import connect

        self.timeout = timeout
        self._stack = contextlib.ExitStack()  # websockets >= 17.1 wants a context manager
        self.ws = self._stack.enter_context(connect(
            url, compression=None, max_size=MAX_MESSAGE_BYTES, open_timeout=10, close_timeout=1))
        try:
            self.metadata = _metadata(self.ws.recv(timeout=timeout))
        except BaseException:
            self.close()
            raise

    def infer(self, request: dict[str, Any]) -> dict[str, Any]:
        self.ws.send(pack(request))
        reply = self.ws.recv(timeout=self.timeout)  # per reply: a silent server is lost
        if isinstance(reply, str):  # openpi servers send an error as text
            raise RemotePolicyError(f"server policy: {error_text(reply)}")
        return unpack(reply)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._stack.close()


def _metadata(greeting: Any) -> dict[str, Any]:
    """The server's first message, decoded under the metadata cap (WireError otherwise)."""
    if isinstance(greeting, str):
        raise WireError("the first message is text, not openpi metadata (a msgpack map)")
    return unpack(greeting, MAX_METADATA_BYTES)


def _lost(url: str, exc: BaseException) -> PolicyServerLost:
    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    lost = PolicyServerLost(f"policy server {url} lost ({reason})")
    lost.reason = reason
    return lost


def server_metadata(settings: OpenpiSettings, flag: str = "--policy",
                    timeout: float = 10.0) -> dict[str, Any]:
    """The server's metadata (sent on connect) as the manifest stores it (``stored_json``), or a
    one-line ValueError before any work. Read with a time limit (openpi_client would wait
    forever for a server that never speaks) and under the metadata cap."""
    from websockets.sync.client import connect

    where = f"{flag} {settings.url}"
    try:
        with connect(settings.url, compression=None, max_size=MAX_METADATA_BYTES,
                     open_timeout=timeout, close_timeout=1) as ws:
            greeting = ws.recv(timeout=timeout)
    except TimeoutError:
        raise ValueError(f"{where}: the server sent no metadata within {timeout:g} s (not an "
                         "openpi policy server?)") from None
    except Exception as exc:
        if too_big(exc):
            raise ValueError(f"{where}: the server's metadata is over the {MAX_METADATA_BYTES}-"
                             "byte limit") from None
        raise ValueError(f"{where}: no policy server answers "
                         f"({cut_text(_lost(settings.url, exc).reason, 300)})") from None
    try:
        metadata = _metadata(greeting)
    except WireError as exc:
        raise ValueError(f"{where}: the server's first message is not openpi metadata ({exc})") \
            from None
    return stored_json(metadata)


def stored_json(value: Any) -> Any:
    """What the manifest keeps of a server's metadata: plain JSON, bounded whatever was sent.
    Strings over 1,000 characters are cut with a note, containers keep their first 64 items,
    arrays over 64 values are described, and nesting below depth 8 is described."""
    budget = [STORED_ITEMS]
    return _stored(value, 0, budget)


def _stored(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        return "<cut: over the metadata item budget>"
    if isinstance(value, (dict, list, tuple)) and depth >= STORED_DEPTH:
        return f"<{type(value).__name__} nested deeper than {STORED_DEPTH}>"
    if isinstance(value, dict):
        items = list(value.items())
        out = {cut_text(k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k),
                        STORED_TEXT): _stored(v, depth + 1, budget)
               for k, v in items[:STORED_CONTAINER]}
        if len(items) > STORED_CONTAINER:
            out["<cut>"] = f"{len(items) - STORED_CONTAINER} more keys"
        return out
    if isinstance(value, (list, tuple)):
        kept = [_stored(v, depth + 1, budget) for v in value[:STORED_CONTAINER]]
        more = len(value) - STORED_CONTAINER
        return kept + [f"<cut: {more} more items>"] if more > 0 else kept
    if isinstance(value, np.ndarray):  # numeric only (wire.unpack)
        if value.size > STORED_CONTAINER:
            return f"<array {value.dtype} {list(value.shape)}>"
        return _stored(value.tolist(), depth, budget)
    if isinstance(value, np.generic):
        return _stored(value.item(), depth, budget)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, str):
        return cut_text(value, STORED_TEXT)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # the manifest is strict JSON
    return value if isinstance(value, (bool, int, float, type(None))) else repr(type(value))


def check_chunk(reply: Any, action_dim: int, takes: str = "env.action_dim is") -> np.ndarray:
    """The reply's actions as (horizon, action_dim) float64, or why it is not one;
    ``action_dim``: the width the action map takes (the env's own without one)."""
    if not isinstance(reply, dict) or "actions" not in reply:
        keys = sorted(map(str, reply)) if isinstance(reply, dict) else type(reply).__name__
        raise ProtocolError(f"protocol error: the reply has no 'actions' ({keys})")
    actions = reply["actions"]
    if not isinstance(actions, np.ndarray) or actions.dtype.kind not in "biuf":
        raise ProtocolError("protocol error: 'actions' is not a numeric array")
    if actions.ndim == 1:
        actions = actions[None, :]
    if actions.ndim != 2 or not 1 <= actions.shape[0] <= MAX_HORIZON:
        raise ProtocolError(f"protocol error: 'actions' has shape {actions.shape}, expected "
                            f"(horizon <= {MAX_HORIZON}, action_dim)")
    if actions.shape[1] != action_dim:
        raise ProtocolError(f"the action chunk has width {actions.shape[1]}, {takes} "
                            f"{action_dim}")
    if not np.all(np.isfinite(actions)):
        raise ProtocolError("the action chunk holds NaN or inf")
    return np.asarray(actions, dtype=np.float64)


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
                self._client = _Connection(self.settings.url)
            except WireError as exc:
                raise ProtocolError(f"protocol error: the server's metadata: {exc}") from None
            except Exception as exc:  # refused, reset, websockets' handshake errors
                if too_big(exc):
                    raise ProtocolError("protocol error: the server's metadata is over the "
                                        f"{MAX_MESSAGE_BYTES}-byte limit") from None
                raise self._lost(exc) from None

    def _lost(self, exc: BaseException) -> PolicyServerLost:
        self._drop()
        lost = _lost(self.settings.url, exc)
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

