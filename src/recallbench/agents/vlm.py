"""The VLM frame-selection agent: any OpenAI-compatible chat-completions server, one flag each
for model, base URL and API-key environment variable.

Per case it sends the K offered frames (the frame budget) as stamped images followed by the
paper's prompt (a versioned file), parses the JSON answer with the FindingDory parser (never
eval) and returns the raw text, the parsed positions and everything the run log should keep:
latency, tokens, attempts, cache hit, chain of thought and the failure mode when there is one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from recallbench.agents.cache import ResponseCache
from recallbench.agents.chat_settings import ChatSettings
from recallbench.agents.frame_cache import PreparedFrames
from recallbench.agents.openai_client import ChatClient, ChatResult
from recallbench.agents.prompts import Prompt, load_prompt
from recallbench.agents.vlm_images import (
    image_parts,
    model_images,
    open_source,
    parse_image_size,
    time_of_day_at,
    url_parts,
)
from recallbench.benchmarks.findingdory.parse import parse_frame_indices
from recallbench.benchmarks.findingdory.protocol import (
    FrameAnswer,
    FrameQuery,
    FrameSource,
    TransientError,
)
from recallbench.video.reader import DETERMINISTIC_DECODE_ERRORS

DEFAULT_PROMPT = "findingdory_frame_selection_v1"
GOAL_PREFIX = "The robot's goal is:"


def goal_text(instruction: str) -> str:
    """FindingDory instructions already read "The robot's goal is: ..."; others get the prefix,
    so the rendered prompt ends exactly as the paper's does."""
    instruction = instruction.strip()
    if instruction.lower().startswith(GOAL_PREFIX.lower()):
        return instruction
    return f"{GOAL_PREFIX} {instruction}"


def _as_dict(value: dict[str, Any] | str | None) -> dict[str, Any]:
    """``extra_body`` as a dict; a command line passes it as a JSON string."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, dict):
        raise ValueError(f"extra_body must be a JSON object, got {value!r}")
    return dict(value)


def request_info(result: ChatResult) -> dict[str, Any]:
    """The request facts every model-backed agent puts in ``FrameAnswer.info``."""
    return {
        "latency_s": round(result.latency_s, 4),
        "attempts": result.attempts,
        "cache_hit": result.cache_hit,
        "cache_key": result.cache_key,
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "total_tokens": result.total_tokens,
        "response_model": result.response_model,
        "finish_reason": result.finish_reason,
        "retry_waits_s": result.retry_waits_s,
    }


def answer_from_text(result: ChatResult, num_offered: int, info: dict[str, Any]) -> FrameAnswer:
    """Parse a model reply into a FrameAnswer; failures become ``info["failure_mode"]``.

    Out-of-range positions are returned as the model gave them (the benchmark scores them as
    ``out_of_bounds_pred``); they are flagged here so the run log shows it per case.
    """
    info = info | request_info(result)
    if result.cache_error:
        info["cache_error"] = result.cache_error
    if not result.ok and result.transient:  # never a final answer: --resume asks again
        raise TransientError(result.error_kind or "request_error", result.error or "", info)
    if not result.ok:
        info.update(error=result.error, error_kind=result.error_kind, failure_mode="request_error")
        return FrameAnswer(frame_indices=None, response=result.text, info=info)
    parsed = parse_frame_indices(result.text)
    info["chain_of_thought"] = parsed.chain_of_thought
    if not parsed.ok:
        info.update(parse_error=parsed.error, failure_mode="response_error")
        return FrameAnswer(frame_indices=None, response=result.text, info=info)
    indices = parsed.frame_indices or []
    if any(not 0 <= i < num_offered for i in indices):
        info["failure_mode"] = "out_of_bounds_pred"
    return FrameAnswer(frame_indices=list(indices), response=result.text, info=info)


class VLMAgent:
    """Frame selection by a vision-language model behind a chat-completions endpoint.

    ``image_size``: None keeps the decoded size, an int sets the longer side, ``"WxH"`` or
    ``(w, h)`` an exact size. ``cache_dir`` enables the response cache (a rerun sends nothing).
    Thread-safe: the runner may call ``select_frames`` from several threads; at most
    ``concurrency`` requests are in flight.
    """

    privileged = False
    watches_video = True  # its answers come from the frames: a run without videos is refused

    def __init__(
        self,
        model: str,
        base_url: str = "http://localhost:8000/v1",
        *,
        api_key_env: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        timeout: float = 120.0,
        max_retries: int = 5,
        concurrency: int = 4,
        image_size: int | str | tuple[int, int] | None = None,
        image_format: str = "jpeg",
        image_quality: int = 90,
        image_detail: str | None = None,
        prompt: str | Path = DEFAULT_PROMPT,
        cache_dir: str | Path | None = None,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        max_retry_after: float = 300.0,
        max_reply_bytes: int = 4 * 1024 * 1024,
        max_connection_failures: int = 3,
        extra_body: dict[str, Any] | None = None,
        name: str = "vlm",
    ) -> None:
        self.name = name
        self.settings = ChatSettings(  # coerces command-line strings itself
            model=model, base_url=base_url, api_key_env=api_key_env, temperature=temperature,
            max_tokens=max_tokens, timeout=timeout, max_retries=max_retries,
            concurrency=concurrency, backoff_base=backoff_base, backoff_max=backoff_max,
            max_retry_after=max_retry_after, max_reply_bytes=max_reply_bytes,
            max_connection_failures=max_connection_failures, extra_body=_as_dict(extra_body),
        )
        self.client = ChatClient(self.settings, cache_dir=cache_dir)
        self.prompt: Prompt = load_prompt(prompt)
        self.image_size = parse_image_size(image_size)
        self.image_format = image_format
        self.image_quality = int(image_quality)
        self.image_detail = image_detail or None
        # Frames prepared once per video, shared by its questions (and, with a cache_dir, by
        # every worker and rerun).
        self.prepared = PreparedFrames(
            disk=ResponseCache(Path(cache_dir) / "frames") if cache_dir else None
        )

    def messages(self, query: FrameQuery, source: FrameSource) -> list[dict[str, Any]]:
        """The chat request for one case: every offered frame as an image, then the prompt (the
        frames first, so questions on one video share a prefix a server can cache)."""

        def time_of(position: int) -> str | None:
            return time_of_day_at(query, source, position)

        urls = self.prepared.data_urls(source, self.image_size, time_of, self.image_format,
                                       self.image_quality)
        if urls is None:  # in-memory frames: nothing to key a cache on
            images = model_images(source, None, self.image_size, time_of)
            content = image_parts(images, self.image_format, self.image_quality,
                                  self.image_detail)
        else:
            content = url_parts(urls, self.image_detail)
        text = self.prompt.render(goal=goal_text(query.instruction))
        content.append({"type": "text", "text": text})
        return [{"role": "user", "content": content}]

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        info: dict[str, Any] = {"model": self.settings.model, "prompt_sha256": self.prompt.sha256}
        source = open_source(query, frames)
        if source is None:
            info.update(error="the case has no video and no frames", failure_mode="request_error")
            return FrameAnswer(frame_indices=None, response=None, info=info)
        try:
            messages = self.messages(query, source)
        except DETERMINISTIC_DECODE_ERRORS as exc:  # the same on every try: this case's error
            info.update(error=f"decode_error: {type(exc).__name__}: {exc}"[:2000],
                        failure_mode="decode_error")
            return FrameAnswer(frame_indices=None, response=None, info=info)
        except (OSError, ValueError, EOFError) as exc:  # PyAV's decode errors subclass these
            raise TransientError("decode_error", f"{type(exc).__name__}: {exc}", info) from exc
        info["num_images"] = len(source)
        return answer_from_text(self.client.complete(messages), len(source), info)

    def check_server(self) -> str | None:
        """Why the model server cannot be used (checked once, before any case), or None. A
        server that is down but whose replies are all cached is left to the run."""
        why = self.client.unreachable()
        if why is None or self.client.has_cached_replies():
            return None
        return (f"base_url={self.settings.base_url}: no model server answers ({why}); start it "
                "or fix --agent-arg base_url")

    def manifest(self) -> dict[str, Any]:
        """What moves this agent's numbers, for the run manifest (no secrets: the key's env var
        name only)."""
        return {
            "agent": self.name,
            "kind": "vlm",
            **self.settings.public(),
            "prompt": self.prompt.manifest(),
            "image_size": self.image_size,
            "image_format": self.image_format,
            "image_quality": self.image_quality,
            "image_detail": self.image_detail,
            "cache": str(self.client.cache.root) if self.client.cache else None,
        }
