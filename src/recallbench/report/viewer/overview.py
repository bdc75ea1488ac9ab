"""The numbers a researcher draws conclusions from, per benchmark: each agent's metrics with 95%
intervals, breakdowns by category / group / fixture type or template, failure modes, paired
tests between agents and each memory agent's gain over the memoryless baseline.

Computed from the per-case rows the viewer lists (the benchmarks' own scores), so the overview,
the case browser and report.html agree case for case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from recallbench.report.aggregate import metric_summary
from recallbench.report.paired import INTERVAL_NAME, TEST_NAME, gains, pairwise
from recallbench.report.viewer.sources import baseline_of, memory_agents

TITLES = {"scenemem": "SceneMem", "findingdory": "FindingDory"}
PRIMARY = {"scenemem": "memory_success", "findingdory": "hl_sr"}
# The row fields each breakdown slices by, and what they are called per benchmark.
SLICES = {
    "scenemem": {"category": "object category", "group": "task", "kind": "fixture type"},
    "findingdory": {"category": "category", "group": "group", "kind": "template"},
}
DEFINITIONS = {
    "memory_success": "approached the target fixture (base within the approach radius, 1.2 m "
                      "by default) AND opened it (some listed joint |qpos| >= 0.5), at any step "
                      "before max_steps; the SceneMem card's rule",
    "first_open_success": "recallbench's own, stricter than the card: memory success AND the "
                          "first fixture the agent opened past the threshold was the target",
    "hl_sr": "the chosen frame(s) satisfy the goal: a single-goal frame in the valid list; "
             "multi-goal frames each satisfy one new sub-goal (in order when ordered)",
    "dtg_sr": "HL check with the coverage test off (distance + angle); needs annotations",
    "sc_sr": "HL check with the distance test off (coverage + angle); needs annotations",
    "hl_spl": "single-goal only: d_nearest / max(d_nearest, d_chosen) from the start pose; "
              "0 when HL fails",
    "ll_sr": "the goal holds when the low-level policy calls STOP",
    "ll_spl": "LL success * L* / max(L*, L)",
    "exact_acc": "predicted lists equal the answer lists",
    "relaxed_acc": "per sub-list fraction of predicted frames inside the valid list (product)",
}
LABELS = {"memory_success": "memory success", "first_open_success": "first-open success",
          "hl_sr": "HL-SR", "dtg_sr": "DTG-SR", "sc_sr": "SC-SR", "hl_spl": "HL-SPL",
          "ll_sr": "LL-SR", "ll_spl": "LL-SPL",
          "exact_acc": "exact acc.", "relaxed_acc": "relaxed acc."}


def _metric_values(bench: str, row: Mapping[str, Any], detail: Mapping[str, Any]) -> dict:
    if bench == "scenemem" and not detail.get("metrics"):  # viewers built before the strict one
        return {"memory_success": 1.0 if row["success"] else 0.0}
    return dict(detail.get("metrics") or {})


def benchmark_overview(bench: str, agents: Sequence[str],
                       cases: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
                       seed: int = 0) -> dict[str, Any]:
    """``cases``: (row, detail) pairs of every agent of this benchmark."""
    per_agent: dict[str, list[tuple[Mapping[str, Any], dict]]] = {a: [] for a in agents}
    for row, detail in cases:
        per_agent.setdefault(row["agent"], []).append((row, _metric_values(bench, row, detail)))
    metrics = [m for m in DEFINITIONS if any(m in v and v[m] is not None
                                             for rows in per_agent.values() for _, v in rows)]
    # a suite may name its own primary metric (generated SceneMem suites: first_open_success)
    named = {d.get("primary") for _, d in cases if d.get("primary") in metrics}
    primary = named.pop() if len(named) == 1 else PRIMARY[bench]
    out: dict[str, Any] = {
        "title": TITLES.get(bench, bench), "primary": primary, "metrics": metrics,
        "definitions": {m: DEFINITIONS[m] for m in metrics},
        "labels": {m: LABELS.get(m, m) for m in metrics},
        "slices": SLICES[bench], "agents": {}, "breakdowns": {},
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
    for field in SLICES[bench]:
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
    baseline = baseline_of(list(scores))
    out["paired"] = {"test": TEST_NAME, "interval": INTERVAL_NAME, "metric": primary,
                     "pairs": pairwise(scores, seed=seed), "baseline": baseline,
                     "gains": gains(scores, baseline, memory_agents(list(scores)), seed=seed)
                     if baseline else []}
    return out
