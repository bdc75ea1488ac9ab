"""One bounded HTTP POST to an OpenAI-compatible server (``ChatEndpoint``), for ``ChatClient``.

- ``timeout`` is a total deadline per attempt (connect, send, every byte of the reply): a
  watchdog shuts the socket down at the deadline, so a reply that trickles in is cut off.
- A reply above ``max_reply_bytes`` is refused, not read.
- The API key is redacted from everything the server sends back (some echo request headers),
  as written or JSON-escaped, before anything is decoded, kept or shown.
- A failed attempt raises ``AttemptFailed``, whose ``retryable`` tells the client's retry loop
  whether to go on (timeouts, connection failures, 429, 5xx) or stop (other 4xx, bad replies).

Standard library HTTP only (http.client).
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import re
import socket
import threading
import urllib.parse
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

REDACTED = "[REDACTED]"


class AttemptFailed(Exception):
    """A failed attempt: ``retryable`` decides whether the retry loop goes on."""

    def __init__(self, kind: str, message: str, retryable: bool, retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


@functools.lru_cache(maxsize=8)
def key_pattern(key: str) -> re.Pattern[bytes]:
    """The key in a reply's bytes: each character as itself or JSON-escaped (``\\uXXXX`` in
    either case, ``\\/`` for a slash), so an escaping server cannot carry it past redaction."""
    parts = []
    for char in key:
        forms = [re.escape(char.encode("utf-8"))]
        if ord(char) < 0x10000:
            hex4 = f"{ord(char):04x}"
            forms.append(rb"\\u" + "".join(
                f"[{h}{h.upper()}]" if h.isalpha() else h for h in hex4).encode("ascii"))
        if char in '/"\\':
            forms.append(re.escape(b"\\" + char.encode("ascii")))
        parts.append(b"(?:" + b"|".join(forms) + b")")
    return re.compile(b"".join(parts))


def probe_server(base_url: str, timeout: float = 3.0) -> str | None:
    """One request (GET base_url/models) within ``timeout`` s: why no server answers there
    (refused, no such host, silence), or None when anything answers (any HTTP status: a 401 or
    404 still means a server is listening)."""
    url = urllib.parse.urlsplit(base_url.rstrip("/") + "/models")
    kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    conn = kind(url.hostname or "", url.port, timeout=timeout)
    try:
        conn.request("GET", url.path or "/", headers={"Accept": "application/json"})
        conn.getresponse().read(1024)
    except (OSError, http.client.HTTPException) as exc:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    finally:
        conn.close()
    return None


class ChatEndpoint:
    """POSTs JSON to ``url`` (thread-safe: each call opens its own connection)."""

    def __init__(self, url: str, api_key: str | None, timeout: float,
                 max_reply_bytes: int) -> None:
        self.url = url
        self.timeout = timeout
        self.max_reply_bytes = max_reply_bytes
        self._api_key = api_key

    def post(self, data: bytes) -> dict[str, Any]:
        """The reply's JSON object, redacted; ``AttemptFailed`` for anything else."""
        status, headers, raw = self._exchange(data)
        raw = self.redact(raw)  # a server that echoes the request must not leak the key
        if status >= 400:
            detail = raw[:300].decode("utf-8", "replace")  # cut after redaction, never before
            retry_after = parse_retry_after(headers.get("Retry-After"))
            raise AttemptFailed(
                f"http_{status}",
                f"HTTP {status} from {self.url}: {detail}",
                status == 429 or status >= 500,
                retry_after,
            )
        try:
            payload = self._redact_decoded(json.loads(raw))
        except (ValueError, RecursionError) as exc:
            raise AttemptFailed("bad_response", f"response is not JSON: {raw[:200]!r}",
                                False) from exc
        if not isinstance(payload, dict):
            raise AttemptFailed("bad_response",
                                f"response is not a JSON object: {raw[:200]!r}", False)
        return payload

    def _exchange(self, data: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One POST within ``timeout`` seconds in total: a watchdog shuts the socket down at
        the deadline, so neither a slow connect nor a trickling reply can hold a worker."""
        url = urllib.parse.urlsplit(self.url)
        kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        conn = kind(url.hostname or "", url.port, timeout=self.timeout)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        expired = threading.Event()
        sockets: list[socket.socket] = []  # http.client drops conn.sock once the reply starts

        def abort() -> None:
            expired.set()
            for sock in sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        watchdog = threading.Timer(self.timeout, abort)
        watchdog.daemon = True
        watchdog.start()
        connected = False
        try:
            conn.connect()
            connected = True
            sockets.append(conn.sock)
            if expired.is_set():  # the deadline passed while connecting
                raise TimeoutError
            path = url.path + (f"?{url.query}" if url.query else "")
            conn.request("POST", path, body=data, headers=headers)
            response = conn.getresponse()
            raw = self._read_capped(response, self.max_reply_bytes)
            if expired.is_set():
                raise TimeoutError
            return response.status, response.headers, raw
        except TimeoutError as exc:
            raise AttemptFailed("timeout", f"timeout after {self.timeout:g}s", True) from exc
        except (OSError, http.client.HTTPException) as exc:
            if expired.is_set():
                raise AttemptFailed("timeout", f"timeout after {self.timeout:g}s", True) from exc
            if not connected:
                reason = getattr(exc, "strerror", None) or repr(exc)
                raise AttemptFailed("connection", f"cannot reach {self.url}: {reason}",
                                    True) from exc
            raise AttemptFailed("io", f"connection to {self.url} failed: {exc!r}", True) from exc
        finally:
            watchdog.cancel()
            conn.close()

    @staticmethod
    def _read_capped(response: http.client.HTTPResponse, cap: int) -> bytes:
        length = response.getheader("Content-Length")
        if length is not None and length.isdigit() and int(length) > cap:
            raise AttemptFailed("reply_too_large", f"reply of {length} bytes exceeds {cap}", False)
        chunks, size = [], 0
        while chunk := response.read1(65536):
            size += len(chunk)
            if size > cap:
                raise AttemptFailed("reply_too_large", f"reply exceeds {cap} bytes", False)
            chunks.append(chunk)
        return b"".join(chunks)

    def redact(self, data: bytes) -> bytes:
        """``data`` with every copy of the API key replaced (servers echo headers), as written
        or JSON-escaped (``\\/``, ``\\u0073``): the decoded reply must not hold it."""
        if not self._api_key:
            return data
        return key_pattern(self._api_key).sub(REDACTED.encode("ascii"), data)

    def _redact_decoded(self, value: Any) -> Any:
        """Every string of a decoded reply, keys included, with the key replaced."""
        if not self._api_key:
            return value
        key = self._api_key
        if isinstance(value, str):
            return value.replace(key, REDACTED)
        if isinstance(value, list):
            return [self._redact_decoded(v) for v in value]
        if isinstance(value, dict):
            return {self._redact_decoded(k): self._redact_decoded(v) for k, v in value.items()}
        return value
