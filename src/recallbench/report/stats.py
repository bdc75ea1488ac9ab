"""Bootstrap confidence intervals, vectorised with numpy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = 2000,
    ci: float = 0.95,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Mean and percentile bootstrap interval (mean, lo, hi) of per-instance values.

    All resamples are drawn as one (n_resamples, n) index matrix, so 2,000 resamples of
    6,000 instances take milliseconds. Empty input gives NaNs; one value gives a zero-width
    interval. Seeded, so reports are reproducible.
    """
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"expected a 1-D array of per-instance values, got shape {arr.shape}")
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci}")
    n = arr.size
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    mean = float(arr.mean())
    if n == 1:
        return (mean, mean, mean)
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    # Chunk the index matrix so memory stays bounded (~8 MB) for large n.
    chunk = max(1, 1_000_000 // n)
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = arr[idx].mean(axis=1)
    alpha = (1 - ci) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return (mean, float(lo), float(hi))
