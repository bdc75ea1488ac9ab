"""The numbers a researcher draws conclusions from, per benchmark: each agent's metrics with 95%
intervals, breakdowns by category / group / fixture type or template, failure modes, paired
tests between agents and each memory agent's gain over the memoryless baseline.

Computed from the per-case rows the viewer lists (the benchmarks' own scores), so the overview,
the case browser and report.html agree case for case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from recallbench.agents.registry import DEFAULT_KIND
from recallbench.benchmarks.registry import get_benchmark
from recallbench.report.aggregate import metric_summary
from recallbench.report.paired import INTERVAL_NAME, TEST_NAME, gains, pairwise
from recallbench.report.viewer.sources import baseline_of, memory_agents


def benchmark_overview(bench: str, agents: Sequence[str],
                       cases: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
                       seed: int = 0, kinds: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``cases``: (row, detail) pairs of every agent of this benchmark; ``kinds``: agent ->
    its kind (``sources.run_kind``; an agent not in it is a memory agent)."""
    per_agent: dict[str, list[tuple[Mapping[str, Any], dict]]] = {a: [] for a in agents}
    for row, detail in cases:
        per_agent.setdefault(row["agent"], []).append((row, dict(detail.get("metrics") or {})))
    benchmark = get_benchmark(bench)
    metrics = [m for m in benchmark.metric_names() if any(m in v and v[m] is not None
                                             for rows in per_agent.values() for _, v in rows)]
    # a suite may name its own primary metric (generated SceneMem suites: first_open_success)
    named = {d.get("primary") for _, d in cases if d.get("primary") in metrics}
    primary = named.pop() if len(named) == 1 else benchmark.primary
    out: dict[str, Any] = {
        "title": benchmark.title, "primary": primary, "metrics": metrics,
        "definitions": {m: benchmark.definitions()[m] for m in metrics},
        "labels": {m: benchmark.labels()[m] for m in metrics},
        # the row fields each breakdown slices by, and what the benchmark calls them; how a
        # case page is drawn (viewer.js)
        "slices": dict(benchmark.viewer_slices), "page": benchmark.viewer_page,
        "agents": {}, "breakdowns": {},
    }
    for agent, rows in per_agent.items():
        failures: dict[str, int] = {}
        for row, _ in rows:
            if row["failure"]:
                failures[row["failure"]] = failures.get(row["failure"], 0) + 1
        out["agents"][agent] = {
            "n": len(rows), "failures": failures,
            "metrics": {m: metric_summary([v.get(m) for _, v in rows], seed=seed)
                        for m in metrics},
        }
    for field in benchmark.viewer_slices:
        table: dict[str, dict[str, Any]] = {}
        for agent, rows in per_agent.items():
            groups: dict[str, list[float]] = {}
            for row, values in rows:
                if values.get(primary) is not None:
                    groups.setdefault(str(row[field]), []).append(values[primary])
            for name, vals in groups.items():
                table.setdefault(name, {})[agent] = metric_summary(vals, seed=seed)
        out["breakdowns"][field] = dict(sorted(table.items()))
    scores = {a: {row["id"]: v[primary] for row, v in rows if v.get(primary) is not None}
              for a, rows in per_agent.items() if rows}
    scored_kinds = {a: (kinds or {}).get(a, DEFAULT_KIND) for a in scores}
    baseline = baseline_of(scored_kinds)
    out["paired"] = {"test": TEST_NAME, "interval": INTERVAL_NAME, "metric": primary,
                     "pairs": pairwise(scores, seed=seed), "baseline": baseline,
                     "gains": gains(scores, baseline, memory_agents(scored_kinds), seed=seed)
                     if baseline else []}
    return out
