"""Low-level (navigation) metrics from recorded outcomes: LL-SR, LL-SPL, L* and failure modes.

The rollout itself (the policy driving in the built-in world) records, per case, whether the
predicate held at STOP, the path length walked, the steps taken, and at the stop pose the
distance to the nearest valid target and whether a target was in view. Everything here is a
pure function of those numbers and the episode's geodesic distances.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

MAX_STEPS = 1000
SLIGHTLY_FAR = 2.5  # m: the official "relaxed" distance splitting slightly far from too far
EXACT_TOUR_MAX_GOALS = 6
LL_FAILURE_MODES = (
    "timeout",
    "tgt_in_view_slightly_far",
    "tgt_in_view_too_far",
    "tgt_not_in_view_slightly_far",
    "tgt_not_in_view_too_far",
)


def _valid(d: float) -> bool:
    # The official code let placeholder -1 distances through (negative SPL); we drop them.
    return math.isfinite(d) and d >= 0


def _best_chain(
    order: Sequence[int],
    start: np.ndarray,
    pair: np.ndarray,
    candidates: Sequence[Sequence[int]],
) -> float:
    """Shortest walk visiting sub-goals in this order, choosing one entity per sub-goal (DP)."""
    first = candidates[order[0]]
    cost = {e: float(start[e]) for e in first if _valid(float(start[e]))}
    for g in order[1:]:
        nxt: dict[int, float] = {}
        for e in candidates[g]:
            options = [c + float(pair[p, e]) for p, c in cost.items() if _valid(float(pair[p, e]))]
            if options:
                nxt[e] = min(options)
        cost = nxt
        if not cost:
            return math.inf
    return min(cost.values(), default=math.inf)


def shortest_path_length(
    start: np.ndarray,
    pair: np.ndarray,
    candidates: Sequence[Sequence[int]],
    *,
    ordered: bool,
) -> float:
    """L*: geodesic length of the shortest way to satisfy every sub-goal from the start pose.

    ``start[e]`` is the geodesic from the start pose to entity e, ``pair[a, b]`` between
    entities; ``candidates[g]`` are the entities that satisfy sub-goal g. Single goal: nearest
    valid target. Ordered: sum of legs in the given order. Unordered: exact shortest tour over
    all orders for <= 6 sub-goals, else nearest neighbour improved by 2-opt. inf if unreachable.
    """
    n = len(candidates)
    if n == 0 or any(len(c) == 0 for c in candidates):
        return math.inf
    if n == 1 or ordered:
        return _best_chain(list(range(n)), start, pair, candidates)
    if n <= EXACT_TOUR_MAX_GOALS:
        return min(
            _best_chain(p, start, pair, candidates) for p in itertools.permutations(range(n))
        )
    return _heuristic_tour(start, pair, candidates)


def _heuristic_tour(
    start: np.ndarray, pair: np.ndarray, candidates: Sequence[Sequence[int]]
) -> float:
    # Represent each sub-goal by its entity nearest the start for ordering; exact DP afterwards
    # picks the best entity per sub-goal along the chosen order.
    n = len(candidates)
    rep = [
        min(c, key=lambda e: float(start[e]) if _valid(float(start[e])) else math.inf)
        for c in candidates
    ]

    def d(a: int | None, b: int) -> float:
        v = float(start[rep[b]]) if a is None else float(pair[rep[a], rep[b]])
        return v if _valid(v) else math.inf

    order: list[int] = []
    left = set(range(n))
    here: int | None = None
    while left:
        nxt = min(left, key=lambda g: d(here, g))
        order.append(nxt)
        left.remove(nxt)
        here = nxt

    def length(o: list[int]) -> float:
        return d(None, o[0]) + sum(d(o[i], o[i + 1]) for i in range(len(o) - 1))

    best = length(order)
    improved = True
    while improved:  # 2-opt on an open path: reverse any segment that shortens it
        improved = False
        for i in range(n - 1):
            for j in range(i + 1, n):
                cand = order[:i] + order[i : j + 1][::-1] + order[j + 1 :]
                c = length(cand)
                if c + 1e-9 < best:
                    order, best, improved = cand, c, True
    return _best_chain(order, start, pair, candidates)


def ll_spl(success: bool, shortest: float, walked: float) -> float | None:
    """success * L* / max(L*, L); None when L* is unknown (never a made-up 0 or negative)."""
    if not _valid(shortest) or not _valid(walked):
        return None
    if not success:
        return 0.0
    denom = max(shortest, walked)
    return 1.0 if denom <= 0 else shortest / denom


def ll_failure_mode(
    *,
    success: bool,
    steps: int,
    stopped: bool,
    target_in_view: bool,
    stop_distance: float,
    max_steps: int = MAX_STEPS,
) -> str | None:
    """Why an LL rollout failed (None on success): timeout, or an incorrect stop split by
    whether a target was in view and whether the nearest one was within 2.5 m."""
    if success:
        return None
    if not stopped or steps >= max_steps:
        return "timeout"
    near = "slightly_far" if stop_distance < SLIGHTLY_FAR else "too_far"
    view = "tgt_in_view" if target_in_view else "tgt_not_in_view"
    return f"{view}_{near}"
