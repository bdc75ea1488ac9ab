"""Per-case seeds derived from the run seed and the case key, never from execution order.

So a case draws the same random numbers whichever worker runs it and whatever ran before it,
which keeps --workers 1, --workers N and a resumed run identical.
"""

from __future__ import annotations

import hashlib
import random
import sys

import numpy as np


def case_seed(run_seed: int, key: str) -> int:
    digest = hashlib.sha256(f"{run_seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


def seed_globals(seed: int) -> None:
    """Seed the global generators a policy or simulator may draw from."""
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")  # only if the policy already imported it
    if torch is not None:
        torch.manual_seed(seed)
