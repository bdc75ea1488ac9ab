"""Paired comparisons of two agents over the same cases.

Two agents answer the same cases, so their outcomes are paired: the exact McNemar test (a
two-sided binomial test on the discordant pairs) says whether their success rates differ, and a
paired bootstrap over cases (resampling cases, not agents) gives the interval of the difference.
Both ignore cases only one of the agents has.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from recallbench.report.stats import bootstrap_ci

TEST_NAME = "exact McNemar test (two-sided binomial on discordant pairs)"
INTERVAL_NAME = "paired bootstrap over cases, 95% percentile interval (2,000 resamples)"


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided p-value of the exact McNemar test: b cases only A solved, c only B solved."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def paired_test(a: Mapping[str, float], b: Mapping[str, float], *, seed: int = 0) -> dict[str, Any]:
    """Compare two agents' per-case 0/1 (or [0, 1]) scores keyed by case id.

    Returns n (shared cases), both means (mean_a, mean_b), the difference a - b with its paired
    bootstrap interval, the discordant counts and McNemar's p (for 0/1 scores)."""
    shared = sorted(set(a) & set(b))
    if not shared:
        return {"n": 0}
    xa = [float(a[k]) for k in shared]
    xb = [float(b[k]) for k in shared]
    diff, lo, hi = bootstrap_ci([p - q for p, q in zip(xa, xb, strict=True)], seed=seed)
    out: dict[str, Any] = {
        "n": len(shared), "mean_a": sum(xa) / len(xa), "mean_b": sum(xb) / len(xb),
        "diff": diff, "lo": lo, "hi": hi,
    }
    if all(v in (0.0, 1.0) for v in (*xa, *xb)):
        only_a = sum(1 for p, q in zip(xa, xb, strict=True) if p > q)
        only_b = sum(1 for p, q in zip(xa, xb, strict=True) if q > p)
        out.update(only_a=only_a, only_b=only_b, p=mcnemar_exact(only_a, only_b))
    return out


def pairwise(scores: Mapping[str, Mapping[str, float]], *, seed: int = 0) -> list[dict[str, Any]]:
    """Every pair of agents (in the given order), each with ``paired_test``."""
    names = list(scores)
    rows = []
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            rows.append({"a": x, "b": y, **paired_test(scores[x], scores[y], seed=seed)})
    return rows


def gains(scores: Mapping[str, Mapping[str, float]], baseline: str, agents: Sequence[str], *,
          seed: int = 0) -> list[dict[str, Any]]:
    """Each agent's gain over ``baseline`` on the shared cases, with its paired interval."""
    if baseline not in scores:
        return []
    return [{"agent": name, "baseline": baseline, **paired_test(scores[name], scores[baseline],
                                                                  seed=seed)}
            for name in agents if name in scores and name != baseline]
