"""A small client for any OpenAI-compatible ``/chat/completions`` server (vLLM, Ollama, OpenAI,
Gemini's OpenAI endpoint, ...), with the pieces a long evaluation run needs.

- Retries with exponential backoff and jitter on 429, 5xx, timeouts and connection errors,
  honouring ``Retry-After``; never on other 4xx (a bad request stays bad).
- A concurrency limit: one semaphore per client, shared by every thread that calls it.
- A disk cache keyed by the request body (model, messages, sampling parameters; images by
  content hash) and not by the base URL, so a rerun against another host of the same model
  costs no request.
- Every outcome is a ``ChatResult``: an exhausted retry budget is an error in it, not an
  exception, so one failing case never stops a run. ``ChatResult.transient`` says whether that
  error may pass (timeouts, connection failures, 429, 5xx): the agent then leaves the case for
  ``--resume`` instead of recording it. ``max_connection_failures`` requests in a row that cannot
  connect at all stop the run (``ServerUnreachable``): a dead server should not burn the suite.
- ``timeout`` is a total deadline per attempt (connect, send, every byte of the reply), so a
  reply that trickles in is cut off; a reply above ``max_reply_bytes`` is refused, not stored.
- The API key is redacted from everything a server sends back (some echo request headers).

Standard library HTTP only (urllib): no SDK needed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.client
import json
import logging
import os
import random
import re
import socket
import threading
import time
import urllib.parse
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from recallbench.agents.cache import ResponseCache, stable_hash
from recallbench.errors import InputError

log = logging.getLogger(__name__)

# Bump when the meaning of a cached entry changes, so old entries stop matching.
CACHE_VERSION = 1
REDACTED = "[REDACTED]"


_COERCE = (
    ("model", str), ("base_url", str), ("temperature", float), ("max_tokens", int),
    ("timeout", float), ("max_retries", int), ("concurrency", int), ("backoff_base", float),
    ("backoff_max", float), ("max_retry_after", float), ("max_reply_bytes", int),
    ("max_connection_failures", int),
)


@dataclass(frozen=True)
class ChatSettings:
    """Where to send requests and how. ``api_key_env`` names the environment variable holding
    the key (never the key itself, so it stays out of manifests and logs); None sends no key,
    as local vLLM / Ollama servers expect. ``max_retries`` counts retries after the first try.
    ``timeout`` is the total time one attempt may take, reply included, in seconds.
    ``max_reply_bytes`` caps a reply's size. ``max_connection_failures`` requests in a row that
    fail to connect (after their retries) stop the run. ``extra_body`` is merged into every
    request (e.g. ``{"seed": 0}`` or a ``response_format``)."""

    model: str
    base_url: str = "http://localhost:8000/v1"
    api_key_env: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout: float = 120.0
    max_retries: int = 5
    concurrency: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_retry_after: float = 300.0
    max_reply_bytes: int = 4 * 1024 * 1024
    max_connection_failures: int = 3
    extra_body: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("model must be a non-empty model id")
        # Values may arrive as strings from a command line (--agent-arg); coerce once, here.
        for name, kind in _COERCE:
            object.__setattr__(self, name, kind(getattr(self, name)))
        object.__setattr__(self, "api_key_env", self.api_key_env or None)
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {self.concurrency}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.timeout <= 0:
            raise ValueError(f"timeout must be > 0, got {self.timeout}")
        if self.max_reply_bytes < 1 or self.max_connection_failures < 1:
            raise ValueError("max_reply_bytes and max_connection_failures must be >= 1")
        check_no_credentials(self.base_url)

    def public(self) -> dict[str, Any]:
        """Settings for a manifest: everything but secrets (there are none: only the env name)."""
        return asdict(self)


_SECRET_PARAM = re.compile(r"key|token|secret|passw|sig|auth", re.IGNORECASE)


def check_no_credentials(base_url: str) -> None:
    """A base_url carrying a password or a key would reach the manifest, the cache key and the
    console: refused, naming where the key goes instead."""
    url = urllib.parse.urlsplit(base_url)
    params = [name for name, _ in urllib.parse.parse_qsl(url.query, keep_blank_values=True)]
    if url.username or url.password or any(_SECRET_PARAM.search(p) for p in params):
        raise ValueError("base_url must not carry credentials (user:password@ or a key in the "
                         "query): put the key in an environment variable and name it with "
                         "api_key_env")


@dataclass
class ChatResult:
    """One request's outcome, successful or not, with what the run log should keep."""

    text: str | None
    cache_key: str
    attempts: int = 0
    latency_s: float = 0.0
    cache_hit: bool = False
    error: str | None = None
    error_kind: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    response_model: str | None = None
    finish_reason: str | None = None
    retry_waits_s: list[float] = field(default_factory=list)
    transient: bool = False  # the error may pass: leave the case for --resume
    cache_error: str | None = None  # the reply is kept even when the cache cannot store it

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


class ServerUnreachable(InputError):
    """Several requests in a row could not connect: the run stops, its records kept."""

    def __init__(self, url: str, failures: int, last: str) -> None:
        super().__init__(
            url,
            "base_url",
            f"{failures} requests in a row could not connect ({last}); run stopped, recorded "
            "cases kept: start the server (or fix base_url) and --resume",
        )


class _Attempt(Exception):
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


def _image_digest(url: str) -> str:
    return "sha256:" + hashlib.sha256(url.encode("ascii", "replace")).hexdigest()


def cache_material(body: dict[str, Any]) -> dict[str, Any]:
    """The request body with every image replaced by its content hash: the cache key source.
    The base URL is deliberately absent; the model id, prompt and parameters are all in body."""
    messages = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            parts = []
            for part in content:
                if part.get("type") == "image_url":
                    image = dict(part["image_url"])
                    image["url"] = _image_digest(str(image.get("url", "")))
                    part = {**part, "image_url": image}
                parts.append(part)
            message = {**message, "content": parts}
        messages.append(message)
    return {"cache_version": CACHE_VERSION, **body, "messages": messages}


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


class ChatClient:
    """Thread-safe chat-completions client; see the module docstring for the behaviour."""

    def __init__(self, settings: ChatSettings, cache_dir: str | Path | None = None) -> None:
        self.settings = settings
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self._semaphore = threading.BoundedSemaphore(settings.concurrency)
        self._api_key: str | None = None
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                # Fail at construction, not on case 1 of 5,000 with a wall of 401s.
                raise ValueError(
                    f"api_key_env={settings.api_key_env!r}: environment variable is not set"
                )
            self._api_key = key
        self._rng = random.Random()
        self._rng_lock = threading.Lock()
        self._connection_failures = 0  # requests in a row that never connected

    @property
    def url(self) -> str:
        return self.settings.base_url.rstrip("/") + "/chat/completions"

    def unreachable(self, timeout: float = 3.0) -> str | None:
        """One request (GET base_url/models) within ``timeout`` s, before any work: why no
        server answers there (refused, no such host, silence), or None when anything answers
        (any HTTP status: a 401 or 404 still means a server is listening)."""
        url = urllib.parse.urlsplit(self.settings.base_url.rstrip("/") + "/models")
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

    def has_cached_replies(self) -> bool:
        """Whether the response cache holds any reply (a rerun may need no server)."""
        return self.cache is not None and any(self.cache.root.glob("*/*.json"))

    def body(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        return {
            "model": s.model,
            "messages": messages,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            **s.extra_body,
        }

    def complete(self, messages: list[dict[str, Any]]) -> ChatResult:
        """Send one chat request (or answer it from the cache). Never raises for transport or
        server errors: they come back in ``ChatResult.error``."""
        body = self.body(messages)
        key = stable_hash(cache_material(body))
        start = time.monotonic()
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None and isinstance(hit.get("text"), str):
                return ChatResult(
                    text=hit["text"],
                    cache_key=key,
                    cache_hit=True,
                    latency_s=time.monotonic() - start,
                    prompt_tokens=hit.get("prompt_tokens"),
                    completion_tokens=hit.get("completion_tokens"),
                    total_tokens=hit.get("total_tokens"),
                    response_model=hit.get("response_model"),
                    finish_reason=hit.get("finish_reason"),
                )
        result = self._send_with_retries(body, key)
        result.latency_s = time.monotonic() - start
        self._count_connection_failures(result)
        if self.cache is not None and result.ok:
            self._store(key, result)
        return result

    def _count_connection_failures(self, result: ChatResult) -> None:
        with self._rng_lock:
            if result.error_kind == "connection":
                self._connection_failures += 1
            else:
                self._connection_failures = 0
            failures = self._connection_failures
        if failures >= self.settings.max_connection_failures:
            raise ServerUnreachable(self.url, failures, result.error or "connection failed")

    def _store(self, key: str, result: ChatResult) -> None:
        """Cache a reply; a full or read-only cache costs the cache entry, never the reply."""
        try:
            self.cache.put(  # type: ignore[union-attr]
                key,
                {
                    "text": result.text,
                    "prompt_tokens": result.prompt_tokens,
                    "completion_tokens": result.completion_tokens,
                    "total_tokens": result.total_tokens,
                    "response_model": result.response_model,
                    "finish_reason": result.finish_reason,
                    "stored": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                },
            )
        except OSError as exc:
            result.cache_error = f"cache write failed: {exc.strerror or exc}"
            log.warning("%s", result.cache_error)

    def _send_with_retries(self, body: dict[str, Any], key: str) -> ChatResult:
        data = json.dumps(body).encode("utf-8")
        result = ChatResult(text=None, cache_key=key)
        for attempt in range(self.settings.max_retries + 1):
            result.attempts = attempt + 1
            try:
                with self._semaphore:
                    payload = self._post(data)
                self._fill(result, payload)
                result.error = result.error_kind = None
                return result
            except _Attempt as failure:
                message = self._redact(str(failure).encode("utf-8")).decode("utf-8")
                result.error, result.error_kind = message, failure.kind
                result.transient = failure.retryable
                if not failure.retryable or attempt == self.settings.max_retries:
                    break
                wait = self._backoff(attempt, failure.retry_after)
                result.retry_waits_s.append(round(wait, 4))
                log.warning("%s (attempt %d), retrying in %.2fs", message, attempt + 1, wait)
                time.sleep(wait)
        if result.attempts > 1 and result.error_kind != "bad_response":
            result.error = f"gave up after {result.attempts} attempts: {result.error}"
        return result

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        s = self.settings
        delay = min(s.backoff_max, s.backoff_base * 2**attempt)
        with self._rng_lock:
            # "Equal jitter": spreads synchronized retries without ever collapsing to zero.
            delay *= 0.5 + 0.5 * self._rng.random()
        if retry_after is not None:
            delay = max(delay, min(retry_after, s.max_retry_after))
        return delay

    def _post(self, data: bytes) -> dict[str, Any]:
        status, headers, raw = self._exchange(data)
        raw = self._redact(raw)  # a server that echoes the request must not leak the key
        if status >= 400:
            detail = raw[:300].decode("utf-8", "replace")  # cut after redaction, never before
            retry_after = parse_retry_after(headers.get("Retry-After"))
            raise _Attempt(
                f"http_{status}",
                f"HTTP {status} from {self.url}: {detail}",
                status == 429 or status >= 500,
                retry_after,
            )
        try:
            payload = self._redact_decoded(json.loads(raw))
        except (ValueError, RecursionError) as exc:
            raise _Attempt("bad_response", f"response is not JSON: {raw[:200]!r}", False) from exc
        if not isinstance(payload, dict):
            raise _Attempt("bad_response", f"response is not a JSON object: {raw[:200]!r}", False)
        return payload

    def _exchange(self, data: bytes) -> tuple[int, http.client.HTTPMessage, bytes]:
        """One POST within ``timeout`` seconds in total: a watchdog shuts the socket down at
        the deadline, so neither a slow connect nor a trickling reply can hold a worker."""
        s = self.settings
        url = urllib.parse.urlsplit(self.url)
        kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        conn = kind(url.hostname or "", url.port, timeout=s.timeout)
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

        watchdog = threading.Timer(s.timeout, abort)
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
            raw = self._read_capped(response, s.max_reply_bytes)
            if expired.is_set():
                raise TimeoutError
            return response.status, response.headers, raw
        except TimeoutError as exc:
            raise _Attempt("timeout", f"timeout after {s.timeout:g}s", True) from exc
        except (OSError, http.client.HTTPException) as exc:
            if expired.is_set():
                raise _Attempt("timeout", f"timeout after {s.timeout:g}s", True) from exc
            if not connected:
                reason = getattr(exc, "strerror", None) or repr(exc)
                raise _Attempt("connection", f"cannot reach {self.url}: {reason}", True) from exc
            raise _Attempt("io", f"connection to {self.url} failed: {exc!r}", True) from exc
        finally:
            watchdog.cancel()
            conn.close()

    def _read_capped(self, response: http.client.HTTPResponse, cap: int) -> bytes:
        length = response.getheader("Content-Length")
        if length is not None and length.isdigit() and int(length) > cap:
            raise _Attempt("reply_too_large", f"reply of {length} bytes exceeds {cap}", False)
        chunks, size = [], 0
        while chunk := response.read1(65536):
            size += len(chunk)
            if size > cap:
                raise _Attempt("reply_too_large", f"reply exceeds {cap} bytes", False)
            chunks.append(chunk)
        return b"".join(chunks)

    def _redact(self, data: bytes) -> bytes:
        """The response with every copy of the API key replaced (servers echo headers), as
        written or JSON-escaped (``\\/``, ``\\u0073``): the decoded reply must not hold it."""
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

    @staticmethod
    def _fill(result: ChatResult, payload: dict[str, Any]) -> None:
        try:
            choice = payload["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise _Attempt(
                "bad_response", f"no choices[0].message.content in response: {exc!r}", False
            ) from exc
        if not isinstance(text, str):
            raise _Attempt("bad_response", f"message content is {type(text).__name__}", False)
        usage = payload.get("usage") or {}
        result.text = text
        result.finish_reason = choice.get("finish_reason")
        result.response_model = payload.get("model")
        result.prompt_tokens = usage.get("prompt_tokens")
        result.completion_tokens = usage.get("completion_tokens")
        result.total_tokens = usage.get("total_tokens")
