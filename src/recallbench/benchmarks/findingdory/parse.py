"""Read frame indices out of a model's text answer. JSON only, never ``eval``.

The paper's prompt asks for ``{"chain_of_thought": str, "frame_indices": list[int]}``. Models
wrap it in ```json fences or surround it with prose, so the first JSON object carrying a
``frame_indices`` key anywhere in the text is used. Anything else is a ``response_error``:
no such object, an ellipsis ("1, 2, ..."), or a value that is not a list of integers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class ParseResult:
    frame_indices: list[int] | None
    chain_of_thought: str | None = None
    error: str | None = None  # why the response is a response_error; None when parsed

    @property
    def ok(self) -> bool:
        return self.error is None


def _objects(text: str) -> list[object]:
    """Every JSON value that starts at a '{' in the text, fenced blocks first."""
    decoder = json.JSONDecoder()
    candidates = [m.group(1).strip() for m in _FENCE.finditer(text)] + [text]
    found: list[object] = []
    for chunk in candidates:
        for match in re.finditer(r"\{", chunk):
            try:
                value, _ = decoder.raw_decode(chunk, match.start())
            except json.JSONDecodeError:
                continue
            found.append(value)
    return found


def parse_frame_indices(text: str | None) -> ParseResult:
    """Parse a model response into frame indices (positions in the offered list)."""
    if text is None or not text.strip():
        return ParseResult(None, error="empty response")
    for value in _objects(text):
        if not isinstance(value, dict) or "frame_indices" not in value:
            continue
        cot = value.get("chain_of_thought")
        cot = cot if isinstance(cot, str) else None
        indices = value["frame_indices"]
        if not isinstance(indices, list):
            return ParseResult(None, cot, "frame_indices is not a list")
        # bool is an int subclass in Python; true/false are not frame numbers.
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in indices):
            return ParseResult(None, cot, "frame_indices holds a non-integer value")
        return ParseResult(list(indices), cot, None)
    if "..." in text or "\u2026" in text:
        return ParseResult(None, error="ellipsis in the answer (indices must be listed)")
    return ParseResult(None, error="no JSON object with frame_indices")
