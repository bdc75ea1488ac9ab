"""The one seeding helper (base layer): every per-case random stream derives from the run seed
and the case key, never from execution order.

So a case draws the same random numbers whichever worker runs it and whatever ran before it,
which keeps --workers 1, --workers N and a resumed run identical. The entropy of a case is
``(run_seed, first 8 bytes of sha256(key))``: ``case_rng`` is a generator over it and
``case_seed`` one 32-bit word of it, for code that takes an integer seed (simulators, the
global generators).
"""

from __future__ import annotations

import hashlib
import random
import sys

import numpy as np


def case_entropy(run_seed: int, key: str) -> list[int]:
    """Independent of order and of Python's salted ``hash()``."""
    digest = hashlib.sha256(key.encode()).digest()
    return [int(run_seed), int.from_bytes(digest[:8], "little")]


def case_rng(run_seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng(case_entropy(run_seed, key))


def case_seed(run_seed: int, key: str) -> int:
    return int(np.random.SeedSequence(case_entropy(run_seed, key)).generate_state(1)[0])


def seed_globals(seed: int) -> None:
    """Seed the global generators a policy or simulator may draw from."""
    random.seed(seed)
    np.random.seed(seed)
    torch = sys.modules.get("torch")  # only if the policy already imported it
    if torch is not None:
        torch.manual_seed(seed)
