"""The text-memory agent (FindingDory's text baseline): the video becomes text, then the question
is answered over the text.

1. The K offered frames are cut into chunks of ``chunk_size`` consecutive positions.
2. Each chunk is captioned by a ``Captioner``: the VLM client with a captioning prompt file, or
   any callable (on generated suites, a privileged captioner built from the world's annotations).
   Captions are computed once per video and shared by every question about it. Chunking and the
   captioners are ``captioning``'s; this module answers over the captions and is the agent.
3. The question is answered over the captions, either by an LLM (same client, an answer prompt
   file, the paper's JSON format) or fully offline by sentence-embedding retrieval (MiniLM from
   the ``embeddings`` extra): the best-matching chunk(s) give the frame(s).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.agents.captioning import (
    Captioner,
    CaptionError,
    Chunk,
    VLMCaptioner,
    make_captioner,
    make_chunks,
)
from recallbench.agents.chat_settings import ChatSettings
from recallbench.agents.openai_client import ChatClient
from recallbench.agents.prompts import Prompt, load_prompt
from recallbench.agents.vlm import answer_from_text, goal_text
from recallbench.agents.vlm_images import open_source
from recallbench.benchmarks.findingdory.protocol import FrameAnswer, FrameQuery, FrameSource

_FRAME_REF = re.compile(r"\bframes?\s+(\d+)", re.IGNORECASE)


class LLMAnswerer:
    """Answers over the captions with a text-only chat request (the paper's JSON format)."""

    def __init__(self, client: ChatClient, prompt: str | Path = "text_memory_answer_v1") -> None:
        self.client = client
        self.prompt: Prompt = load_prompt(prompt)

    def answer(self, query: FrameQuery, captions: Sequence[tuple[Chunk, str]]) -> FrameAnswer:
        listing = "\n".join(f"- {chunk.label()}: {text}" for chunk, text in captions)
        text = self.prompt.render(
            captions=listing,
            last_frame=len(query.offered_frames) - 1,
            goal=goal_text(query.instruction),
        )
        result = self.client.complete([{"role": "user", "content": text}])
        return answer_from_text(result, len(query.offered_frames), {"answerer": "llm"})

    def manifest(self) -> dict[str, Any]:
        return {"answerer": "llm", "prompt": self.prompt.manifest()}


class EmbeddingAnswerer:
    """Offline answer: the chunk(s) whose caption is most similar to the instruction (cosine of
    MiniLM embeddings). Within a chunk, the first frame the caption names ("frame 12") is taken,
    else the chunk's middle frame. One chunk per target (``query.num_targets``, default 1).
    Questions about the order, objects and receptacles of the interactions the captions tell
    are answered from those events first (``caption_events``): similarity cannot count."""

    def __init__(self, embedder: Any = None) -> None:
        if embedder is None:
            from recallbench.agents.embeddings import MiniLMEmbedder

            embedder = MiniLMEmbedder()
        self.embedder = embedder

    def answer(self, query: FrameQuery, captions: Sequence[tuple[Chunk, str]]) -> FrameAnswer:
        if not captions:
            return FrameAnswer(
                None,
                None,
                {"answerer": "embedding", "failure_mode": "response_error", "error": "no captions"},
            )
        from recallbench.agents.caption_events import answer_from_events

        told = answer_from_events(goal_text(query.instruction), captions,
                                  max(1, query.num_targets or 1))
        if told is not None:  # the captions' event timeline answers it (order questions)
            return FrameAnswer(frame_indices=told, response=None,
                               info={"answerer": "embedding", "rule": "caption events"})
        vectors = self.embedder.embed([query.instruction] + [text for _, text in captions])
        scores = vectors[1:] @ vectors[0]
        order = np.argsort(-scores, kind="stable")[: max(1, query.num_targets or 1)]
        picks = [self._frame_in(*captions[i]) for i in order]
        info = {
            "answerer": "embedding",
            "chunk_scores": [round(float(s), 4) for s in scores],
            "chosen_chunks": [int(i) for i in order],
        }
        return FrameAnswer(frame_indices=picks, response=None, info=info)

    @staticmethod
    def _frame_in(chunk: Chunk, text: str) -> int:
        for match in _FRAME_REF.finditer(text):
            position = int(match.group(1))
            if position in chunk.positions:
                return position
        return chunk.positions[len(chunk.positions) // 2]

    def manifest(self) -> dict[str, Any]:
        info = {"answerer": "embedding"}
        if hasattr(self.embedder, "manifest"):
            info.update(self.embedder.manifest())
        return info


def _client_maker(cache_dir: str | Path | None, **settings: Any) -> Callable[[str], ChatClient]:
    """A chat client per model id, each with the agent's request options; made only when a
    captioner or answerer needs one."""
    def client(model_id: str) -> ChatClient:
        return ChatClient(ChatSettings(model=model_id, **settings), cache_dir=cache_dir)
    return client


def _make_answerer(answerer: str, model: str | None, client: Callable[[str], ChatClient],
                   answer_prompt: str | Path, embedder: Any) -> LLMAnswerer | EmbeddingAnswerer:
    """``"llm"``: the chat model over the captions; ``"embedding"``: offline retrieval."""
    if answerer == "llm":
        if not model:
            raise ValueError("text-memory agent: answerer 'llm' needs a model")
        return LLMAnswerer(client(model), answer_prompt)
    if answerer == "embedding":
        return EmbeddingAnswerer(embedder)
    raise ValueError(f"answerer must be 'llm' or 'embedding', got {answerer!r}")


class TextMemoryAgent:
    """Frame selection from captions. ``answerer`` is ``"llm"`` (needs ``model``) or
    ``"embedding"`` (offline). Without a ``captioner`` the VLM client captions the chunks
    (``caption_model`` defaults to ``model``). Request options are the VLM agent's."""

    privileged = False

    def __init__(
        self,
        model: str | None = None,
        base_url: str = "http://localhost:8000/v1",
        *,
        answerer: str = "llm",
        captioner: Captioner | Callable[[Chunk, FrameSource | None], str] | None = None,
        caption_model: str | None = None,
        chunk_size: int = 8,
        api_key_env: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        timeout: float = 120.0,
        max_retries: int = 5,
        concurrency: int = 4,
        cache_dir: str | Path | None = None,
        image_size: int | str | tuple[int, int] | None = None,
        image_format: str = "jpeg",
        caption_prompt: str | Path = "text_memory_caption_v1",
        answer_prompt: str | Path = "text_memory_answer_v1",
        caption_max_words: int = 80,
        backoff_base: float = 1.0,
        embedder: Any = None,
        name: str = "text-memory",
    ) -> None:
        self.name = name
        self.chunk_size = int(chunk_size)
        if self.chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        client = _client_maker(
            cache_dir, base_url=base_url, api_key_env=api_key_env, temperature=temperature,
            max_tokens=max_tokens, timeout=timeout, max_retries=max_retries,
            concurrency=concurrency, backoff_base=backoff_base,
        )
        self.captioner: Captioner = make_captioner(
            captioner, caption_model or model, client, caption_prompt=caption_prompt,
            caption_max_words=caption_max_words, image_size=image_size, image_format=image_format,
        )
        # captions from the frames (a VLM) need the videos; captions from annotations do not
        self.watches_video = isinstance(self.captioner, VLMCaptioner)
        self.answerer: LLMAnswerer | EmbeddingAnswerer = _make_answerer(
            answerer, model, client, answer_prompt, embedder)
        self.model = model
        # Captions are per video, not per question: compute once, share across threads.
        self._captions: dict[tuple, list[tuple[Chunk, str]]] = {}
        self._locks: dict[tuple, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def captions(self, query: FrameQuery, frames: FrameSource | None) -> list[tuple[Chunk, str]]:
        """Every chunk with its caption, memoised per (video, offered frames, times)."""
        key = (query.video_path, query.offered_frames, query.times_of_day)
        cacheable = query.video_path is not None
        if cacheable:
            with self._locks_guard:
                lock = self._locks.setdefault(key, threading.Lock())
        else:
            lock = threading.Lock()
        with lock:
            if cacheable and key in self._captions:
                return self._captions[key]
            source = frames
            if source is None and isinstance(self.captioner, VLMCaptioner):
                source = open_source(query, None)
            chunks = make_chunks(query, self.chunk_size, source)
            captioned = [(chunk, self.captioner.caption(chunk, source)) for chunk in chunks]
            if cacheable:
                self._captions[key] = captioned
            return captioned

    def select_frames(self, query: FrameQuery, frames: FrameSource | None) -> FrameAnswer:
        try:
            captioned = self.captions(query, frames)
        except CaptionError as exc:
            info = {"error": str(exc), "failure_mode": "request_error", "stage": "caption"}
            info.update({f"caption_{k}": v for k, v in exc.info.items()})
            return FrameAnswer(frame_indices=None, response=None, info=info)
        result = self.answerer.answer(query, captioned)
        result.info["captions"] = [
            {"positions": [c.positions[0], c.positions[-1]], "text": text} for c, text in captioned
        ]
        result.info["model"] = self.model
        return result

    def manifest(self) -> dict[str, Any]:
        captioner = getattr(self.captioner, "manifest", None)
        return {
            "agent": self.name,
            "kind": "text-memory",
            "model": self.model,
            "chunk_size": self.chunk_size,
            "captioner": captioner() if callable(captioner) else type(self.captioner).__name__,
            "answerer": self.answerer.manifest(),
            "captioner_settings": (
                self.captioner.client.settings.public()
                if isinstance(self.captioner, VLMCaptioner)
                else None
            ),
        }
