"""Where an OpenAI-compatible chat client sends its requests and how (``ChatSettings``), checked
once at construction: values coerced from command-line strings, limits in range, and no
credentials in the base URL (they would reach the manifest, the cache key and the console)."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import asdict, dataclass, field
from typing import Any

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
