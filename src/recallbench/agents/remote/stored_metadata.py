"""What the manifest keeps of a policy server's metadata (``stored_json``): plain JSON, bounded
whatever the untrusted server sent."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from recallbench.executor.results import cut_text

# At most ~2 MB of JSON: characters per string, items per container, nesting, items in all.
STORED_TEXT, STORED_CONTAINER, STORED_DEPTH, STORED_ITEMS = 1000, 64, 8, 2000


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
