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

The settings are ``chat_settings.ChatSettings``; one attempt's HTTP exchange (deadline, size cap,
redaction) is ``chat_http.ChatEndpoint``. Standard library HTTP only: no SDK needed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from recallbench.agents.cache import ResponseCache, stable_hash
from recallbench.agents.chat_http import AttemptFailed, ChatEndpoint, probe_server
from recallbench.agents.chat_settings import ChatSettings
from recallbench.errors import InputError

log = logging.getLogger(__name__)

# Bump when the meaning of a cached entry changes, so old entries stop matching.
CACHE_VERSION = 1


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


class ChatClient:
    """Thread-safe chat-completions client; see the module docstring for the behaviour."""

    def __init__(self, settings: ChatSettings, cache_dir: str | Path | None = None) -> None:
        self.settings = settings
        self.cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self._semaphore = threading.BoundedSemaphore(settings.concurrency)
        api_key: str | None = None
        if settings.api_key_env:
            api_key = os.environ.get(settings.api_key_env)
            if not api_key:
                # Fail at construction, not on case 1 of 5,000 with a wall of 401s.
                raise ValueError(
                    f"api_key_env={settings.api_key_env!r}: environment variable is not set"
                )
        self._http = ChatEndpoint(self.url, api_key, settings.timeout, settings.max_reply_bytes)
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
        return probe_server(self.settings.base_url, timeout)

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
                    payload = self._http.post(data)
                self._fill(result, payload)
                result.error = result.error_kind = None
                return result
            except AttemptFailed as failure:
                message = self._http.redact(str(failure).encode("utf-8")).decode("utf-8")
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

    @staticmethod
    def _fill(result: ChatResult, payload: dict[str, Any]) -> None:
        try:
            choice = payload["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise AttemptFailed(
                "bad_response", f"no choices[0].message.content in response: {exc!r}", False
            ) from exc
        if not isinstance(text, str):
            raise AttemptFailed("bad_response", f"message content is {type(text).__name__}", False)
        usage = payload.get("usage") or {}
        result.text = text
        result.finish_reason = choice.get("finish_reason")
        result.response_model = payload.get("model")
        result.prompt_tokens = usage.get("prompt_tokens")
        result.completion_tokens = usage.get("completion_tokens")
        result.total_tokens = usage.get("total_tokens")
