"""Aggregate per-instance scores: overall, by group, by category and by template.

Means are over instances (not over categories), each with a bootstrap 95% interval and n. A
metric that no instance of a slice supports is reported as n/a with the reason, never as 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from recallbench.report.stats import bootstrap_ci, bootstrap_ci_columns

SLICES = ("group", "category", "template")


def metric_summary(
    values: Sequence[float | None], *, reason: str | None = None, seed: int = 0
) -> dict[str, Any]:
    present = [float(v) for v in values if v is not None]
    if not present:
        return {"value": None, "n": 0, "na_reason": reason or "no instance supports this metric"}
    mean, lo, hi = bootstrap_ci(present, seed=seed)
    return {"value": mean, "lo": lo, "hi": hi, "n": len(present)}


def summarize(
    rows: Iterable[Mapping[str, Any]],
    metrics: Sequence[str],
    *,
    na_reasons: Mapping[str, str] | None = None,
    slices: Sequence[str] = SLICES,
    seed: int = 0,
) -> dict[str, Any]:
    """{"overall": {metric: summary}, "by_group": {name: {...}}, ...} with counts of failures."""
    rows = list(rows)
    na_reasons = na_reasons or {}

    def block(subset: list[Mapping[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"n": len(subset)}
        # Metrics present on the same instances share one set of bootstrap resamples.
        by_mask: dict[tuple[bool, ...], list[str]] = {}
        for m in metrics:
            mask = tuple(r.get(m) is not None for r in subset)
            by_mask.setdefault(mask, []).append(m)
        for mask, names in by_mask.items():
            keep = [r for r, present in zip(subset, mask, strict=True) if present]
            if not keep:
                for m in names:
                    out[m] = metric_summary([], reason=na_reasons.get(m))
                continue
            table = np.array([[float(r[m]) for m in names] for r in keep])
            cis = bootstrap_ci_columns(table, seed=seed)
            for m, (mean, lo, hi) in zip(names, cis, strict=True):
                out[m] = {"value": mean, "lo": lo, "hi": hi, "n": len(keep)}
        for key, field in (("failures", "failure"), ("ll_failures", "ll_failure")):
            counts: dict[str, int] = {}
            for r in subset:
                f = r.get(field)
                if f:
                    counts[f] = counts.get(f, 0) + 1
            if counts or key == "failures":
                out[key] = counts
        return out

    summary: dict[str, Any] = {"overall": block(rows)}
    for key in slices:
        groups: dict[str, list[Mapping[str, Any]]] = {}
        for r in rows:
            groups.setdefault(str(r.get(key)), []).append(r)
        summary[f"by_{key}"] = {name: block(sub) for name, sub in sorted(groups.items())}
    return summary
