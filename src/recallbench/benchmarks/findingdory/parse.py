"""Read frame indices out of a model's text answer. Never ``eval``.

Two parsers, both linear-time-ish on multi-MB replies (the published one under a work budget:
at most ``_BUDGET_PER_CHAR`` characters decoded per character of the reply):

- ``parse_frame_indices`` (published, the default): the paper's prompt asks for
  ``{"chain_of_thought": str, "frame_indices": list[int]}``. Models wrap it in ```json fences or
  surround it with prose, so the first JSON object carrying a ``frame_indices`` key anywhere in the
  text is used (fenced blocks first, nested objects included). Anything else is a
  ``response_error``: no such object, an ellipsis ("1, 2, ..."), or a value that is not a list of
  integers.
- ``parse_official``: the released agent's reading (``vlm_agent.py``: response_json_loads,
  extract_frame_indices_from_response), see docs/findingdory.md.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

# The released agent generates at most 256 new tokens (~1 KB), so json5, a pure-Python parser at
# ~20 us per character, only ever saw short replies. Beyond this size it would take tens of
# seconds; such replies fall back to the fast parsers (JSON, then Python literals).
JSON5_MAX_CHARS = 65_536


@dataclass(frozen=True)
class ParseResult:
    frame_indices: list[int] | None
    chain_of_thought: str | None = None
    error: str | None = None  # why the response is a response_error; None when parsed

    @property
    def ok(self) -> bool:
        return self.error is None


def _fenced_blocks(text: str) -> Iterator[str]:
    """Contents of ``` fences (an optional "json" tag dropped), in order; one pass."""
    pos = 0
    while True:
        start = text.find("```", pos)
        if start < 0:
            return
        end = text.find("```", start + 3)
        if end < 0:
            return
        body = text[start + 3 : end]
        if body[:4].lower() == "json":
            body = body[4:]
        if "{" in body:
            yield body.strip()
        pos = end + 3


def _dicts_in(value: Any) -> Iterator[dict]:
    """Every dict inside a decoded value, outer first, in document order."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


# Only a '{' followed by '}' or by a whole key string and ':' can start a JSON object (a
# superset of JSON's rule: more whitespace, any escape), so prose braces and '{"' * n are
# never handed to the decoder; the regex costs one pass over each candidate key.
_OBJECT_START = re.compile(r'\{\s*+(?:\}|"[^"\\]*+(?:\\.[^"\\]*+)*+"\s*+:)')  # possessive
_WINDOW = 256
_CUT_MARGIN = 16  # a value cut by the window fails within a keyword's length of the cut
# Characters handed to the decoder per character of the reply (plus a constant): a reply built
# so that every '{' decodes far ahead would otherwise cost quadratic time, on every `score`.
_BUDGET_PER_CHAR = 8
_BUDGET_BASE = 1 << 20
# What one decode attempt costs beyond the characters it reads (a raised JSONDecodeError, the
# window's copy, the next search), in characters of decoding: a few us. Without it
# ``'{"a":"' * n`` (an attempt every 6 characters, each failing after 6) stayed inside the
# budget and took minutes on 4 MB.
_ATTEMPT_COST = 512
# The most frame indices an answer may hold: a case has a handful of goals and an answer of
# more indices than goals fails anyway (num_targets_error); a longer one is a response_error,
# so no later step (scoring, the viewer) walks a million of them.
MAX_FRAME_INDICES = 1000


class BudgetExceeded(Exception):
    """The reply would cost more decoding than its length allows."""


class _Budget:
    def __init__(self, text: str) -> None:
        self.left = _BUDGET_BASE + _BUDGET_PER_CHAR * len(text)

    def spend(self, chars: int) -> None:
        self.left -= chars
        if self.left < 0:
            raise BudgetExceeded


def _decode_at(
    decoder: json.JSONDecoder, chunk: str, pos: int, budget: _Budget
) -> tuple[Any | None, int]:
    """raw_decode at ``pos`` on a growing window of the text: (value, end), or (None, where
    to look next) when no JSON value starts there. A failed raw_decode on the whole text costs
    O(pos) (the error counts the lines before it), which made a scan over every '{' quadratic.
    """
    window = _WINDOW
    budget.spend(_ATTEMPT_COST)
    while True:
        piece = chunk[pos : pos + window]
        cut = pos + window < len(chunk)
        try:
            value, end = decoder.raw_decode(piece)
        except RecursionError:  # nested beyond the decoder's limit: not an answer; move past
            budget.spend(len(piece))
            return None, pos + len(piece)
        except json.JSONDecodeError as exc:
            budget.spend(exc.pos)  # what the decoder read before it failed
            near_cut = exc.pos >= len(piece) - _CUT_MARGIN or exc.msg.startswith("Unterminated")
            if cut and near_cut:
                window *= 4
                continue
            return None, pos + 1
        except ValueError:  # an integer of 4,300+ digits (int() refuses it): not an answer
            budget.spend(len(piece))
            return None, pos + 1
        budget.spend(end)
        return value, pos + end


_DECODER = json.JSONDecoder()  # holds no state between calls


def _objects(chunk: str, budget: _Budget) -> Iterator[dict]:
    """JSON objects starting at a '{' of the chunk, left to right.

    A decoded value is skipped whole (its nested objects come from the value itself), so the
    text is scanned about once, not once per '{'. Each chunk costs an attempt: a reply of a
    million tiny fenced blocks is bounded too.
    """
    budget.spend(_ATTEMPT_COST)
    match = _OBJECT_START.search(chunk)
    while match is not None:
        value, end = _decode_at(_DECODER, chunk, match.start(), budget)
        if value is not None:
            yield from _dicts_in(value)
        match = _OBJECT_START.search(chunk, end)


def too_many_indices(count: int) -> str:
    """Why an answer of ``count`` (> MAX_FRAME_INDICES) frame indices is not read."""
    return f"{count} frame indices, more than the {MAX_FRAME_INDICES} an answer may hold"


def parse_frame_indices(text: str | None) -> ParseResult:
    """Parse a model response into frame indices (positions in the offered list)."""
    if not isinstance(text, str) or not text.strip():  # a record may hold any JSON type
        return ParseResult(None, error="empty response")
    try:
        return _first_answer(text, _Budget(text))
    except BudgetExceeded:
        return ParseResult(None, error="reply too costly to parse (work budget exceeded)")


def _first_answer(text: str, budget: _Budget) -> ParseResult:
    for chunk in itertools.chain(_fenced_blocks(text), (text,)):  # lazily: fences first
        for value in _objects(chunk, budget):
            if "frame_indices" not in value:
                continue
            cot = value.get("chain_of_thought")
            cot = cot if isinstance(cot, str) else None
            indices = value["frame_indices"]
            if not isinstance(indices, list):
                return ParseResult(None, cot, "frame_indices is not a list")
            # bool is an int subclass in Python; true/false are not frame numbers.
            if len(indices) > MAX_FRAME_INDICES:
                return ParseResult(None, cot, too_many_indices(len(indices)))
            if not all(isinstance(i, int) and not isinstance(i, bool) for i in indices):
                return ParseResult(None, cot, "frame_indices holds a non-integer value")
            return ParseResult(list(indices), cot, None)
    if "..." in text or "\u2026" in text:
        return ParseResult(None, error="ellipsis in the answer (indices must be listed)")
    return ParseResult(None, error="no JSON object with frame_indices")


def _official_loads(text: str) -> Any:
    """response_json_loads: cut from the first '{' to the last '}', then json5, then literals."""
    cleaned = text.strip().replace("json", "").replace("```", "")
    start, end = cleaned.find("{"), cleaned.rfind("}") + 1
    if start >= 0 and end > start:
        cleaned = cleaned[start:end]
    try:  # plain JSON is JSON5 with the same value: the C parser answers first, fast
        return json.loads(cleaned)
    except (ValueError, RecursionError):
        pass
    if len(cleaned) <= JSON5_MAX_CHARS:
        import json5

        try:
            return json5.loads(cleaned)
        except Exception:  # json5 raises ValueError and others on bad input
            pass
    try:
        return ast.literal_eval(cleaned)  # literals only: never executes anything
    except Exception:  # SyntaxError, ValueError, RecursionError, MemoryError...
        return None


def parse_official(text: str | None) -> ParseResult:
    """The released agent's indices: ``int()`` of each element (66.0, "24", true -> ints).

    ``frame_indices`` is None (and ``error`` says why) where the agent answers ``[-1]``: no
    "json" and no braces, nothing parsable, no ``frame_indices``, an ellipsis, or an element
    ``int()`` refuses. Inputs on which the released code would raise (``int()`` of a list or of
    infinity, a non-dict answer) also count as unparsable here. Range handling (>= K -> -1,
    clip to 0..K-1) is the scorer's, since it needs K.
    """
    if not isinstance(text, str) or not ("json" in text or ("{" in text and "}" in text)):
        return ParseResult(None, error="no JSON in the response")
    return coerce_official(_official_loads(text))


def coerce_official(value: Any) -> ParseResult:
    """extract_frame_indices_from_response on an already-decoded answer."""
    if not isinstance(value, dict) or "frame_indices" not in value:
        return ParseResult(None, error="no JSON object with frame_indices")
    cot = value.get("chain_of_thought")
    cot = cot if isinstance(cot, str) else None
    indices = value["frame_indices"]
    try:
        if len(indices) > MAX_FRAME_INDICES:
            return ParseResult(None, cot, too_many_indices(len(indices)))
        if Ellipsis in indices:
            return ParseResult(None, cot, "ellipsis in the answer")
        return ParseResult([int(t) for t in indices], cot, None)
    except (TypeError, ValueError, OverflowError) as exc:
        return ParseResult(None, cot, f"frame_indices: {type(exc).__name__}")


def parse_answer_lists(text: str) -> list[list[int]] | None:
    """An answer written as text (HF training rows), read as the official offline evaluator
    (findingdory-train ``evaluate_llm_outputs.py``) reads it: ``ast.literal_eval``; None unless
    it is a list of lists of ints."""
    try:
        value = ast.literal_eval(text.strip())
    except Exception:  # SyntaxError, ValueError, RecursionError, MemoryError...
        return None
    if not isinstance(value, list) or not all(
        isinstance(sub, list) and all(type(i) is int for i in sub) for sub in value
    ):
        return None
    return value
