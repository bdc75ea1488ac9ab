"""One bounded connection to a policy server speaking openpi's WebSocket protocol, and the checks
on what it sends: its metadata (``server_metadata``, read before any work), its replies, and
the action chunk a reply must hold (``check_chunk``). What a server sends is untrusted: every
message is decoded by ``wire.unpack``'s checks under a size cap."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from recallbench.agents.remote.client import (
    DEFAULT_REPLY_TIMEOUT,
    PolicyServerLost,
    RemotePolicyError,
    error_text,
    too_big,
)
from recallbench.agents.remote.openpi_settings import OpenpiSettings
from recallbench.agents.remote.stored_metadata import stored_json
from recallbench.agents.remote.wire import MAX_HORIZON, MAX_MESSAGE_BYTES, WireError, pack, unpack
from recallbench.executor.results import cut_text

# What a server may send: metadata under 1 MiB (openpi's are a few keys); a chunk of at most
# wire.MAX_HORIZON actions.
MAX_METADATA_BYTES = 1024 * 1024


class ProtocolError(RuntimeError):
    """The server answered something that is not an action chunk: fails this test only."""


class OpenpiConnection:
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
            self.metadata = read_metadata(self.ws.recv(timeout=timeout))
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


def read_metadata(greeting: Any) -> dict[str, Any]:
    """The server's first message, decoded under the metadata cap (WireError otherwise)."""
    if isinstance(greeting, str):
        raise WireError("the first message is text, not openpi metadata (a msgpack map)")
    return unpack(greeting, MAX_METADATA_BYTES)


def lost_server(url: str, exc: BaseException) -> PolicyServerLost:
    """The server at ``url`` is gone (``exc`` says how); ``.reason`` keeps the cause alone."""
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
                         f"({cut_text(lost_server(settings.url, exc).reason, 300)})") from None
    try:
        metadata = read_metadata(greeting)
    except WireError as exc:
        raise ValueError(f"{where}: the server's first message is not openpi metadata ({exc})") \
            from None
    return stored_json(metadata)


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
