"""Which frames of a long video an agent is offered under a frame budget."""

from __future__ import annotations

import numpy as np


def subsample_indices(num_frames: int, budget: int) -> np.ndarray:
    """Original-frame indices offered under budget K, exactly as FindingDory samples them.

    ``np.linspace(0, N-1, K, dtype=int)`` when N > K (first and last frame always included,
    truncation not rounding, as in the official code), else every frame.
    """
    if num_frames < 0:
        raise ValueError(f"num_frames must be >= 0, got {num_frames}")
    if budget < 1:
        raise ValueError(f"frame budget must be >= 1, got {budget}")
    if num_frames > budget:
        return np.linspace(0, num_frames - 1, budget, dtype=int)
    return np.arange(num_frames, dtype=int)
