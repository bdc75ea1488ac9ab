"""Scoring recorded outcomes: the card's results.json and breakdowns, as plain functions.

They read run-log records only, so a run can be re-scored without re-running the policy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Record = Mapping[str, Any]


def test_key(scenario: str, test_id: str) -> str:
    return f"{scenario}/{test_id}"


def card_results(
    plan: Iterable[tuple[str, list[str]]], records: Mapping[str, Record]
) -> dict[str, Any]:
    """The card's results.json schema, exactly: scenarios and tests in ``plan`` order.

    ``plan`` lists (scenario, test_ids); a test without a record is left out (the caller
    reports an incomplete run).
    """
    results = []
    total = memory = 0
    for scenario, test_ids in plan:
        tests = []
        for test_id in test_ids:
            record = records.get(test_key(scenario, test_id))
            if record is None:
                continue
            tests.append({"test_id": test_id, "memory": bool(record["memory"])})
            total += 1
            memory += bool(record["memory"])
        results.append({"scenario": scenario, "tests": tests})
    return {"results": results, "summary": {"total": total, "memory": memory}}


def card_problem(card: Any) -> tuple[str, str] | None:
    """The first place where ``card`` is not the card's results.json schema, as (field, why),
    or None: a list of {"scenario": str, "tests": [{"test_id": str, "memory": bool}]}."""
    listed = card.get("results") if isinstance(card, dict) else None
    if not isinstance(listed, list):
        return "results", "not the card's results.json (a list of scenarios with their tests)"
    for i, entry in enumerate(listed):
        if not isinstance(entry, dict):
            return f"results[{i}]", "expected an object with scenario and tests"
        if not isinstance(entry.get("scenario"), str):
            return f"results[{i}].scenario", "expected a scenario name (text)"
        if not isinstance(entry.get("tests"), list):
            return f"results[{i}].tests", "expected a list of tests"
        for j, test in enumerate(entry["tests"]):
            where = f"results[{i}].tests[{j}]"
            if not isinstance(test, dict):
                return where, "expected an object with test_id and memory"
            if not isinstance(test.get("test_id"), str):
                return f"{where}.test_id", "expected a test id (text)"
            if not isinstance(test.get("memory"), bool):
                return f"{where}.memory", "expected true or false"
    return None


def recorded_plan(
    plan: Iterable[tuple[str, list[str]]], records: Mapping[str, Record]
) -> list[tuple[str, list[str]]]:
    """``plan`` plus every recorded test it lacks, scenarios sorted by name: a scenario that no
    longer loads (or a test since removed from its spec) keeps its recorded results."""
    merged: dict[str, list[str]] = {name: list(ids) for name, ids in plan}
    extra: dict[str, set[str]] = {}
    for record in records.values():
        name, test_id = record["scenario"], record["test_id"]
        if test_id not in merged.get(name, ()):
            extra.setdefault(name, set()).add(test_id)
    for name, ids in extra.items():
        merged.setdefault(name, []).extend(sorted(ids))
    return sorted(merged.items())


def breakdown(records: Iterable[Record], field: str) -> dict[str, dict[str, Any]]:
    """Per value of ``field`` (e.g. fixture_type, task): totals, successes, rate, failures, and
    recallbench's strict metric (``first_open``: successes whose first opened fixture was the
    target, ``first_open_rate``; see benchmarks.scenemem.openings)."""
    groups: dict[str, dict[str, Any]] = {}
    for record in records:
        g = groups.setdefault(
            str(record.get(field)),
            {"total": 0, "memory": 0, "first_open": 0, "errors": 0,
             "failed": {"approach": 0, "door": 0, "both": 0}},
        )
        g["total"] += 1
        g["memory"] += bool(record["memory"])
        g["first_open"] += bool(record.get("first_open_success"))
        g["errors"] += record.get("error") is not None
        failed = record.get("failed")
        if failed in g["failed"]:
            g["failed"][failed] += 1
    for g in groups.values():
        g["rate"] = g["memory"] / g["total"] if g["total"] else 0.0
        g["first_open_rate"] = g["first_open"] / g["total"] if g["total"] else 0.0
    return dict(sorted(groups.items()))
