"""SceneMem's metrics, declared once with their code (the value of one run-log record): the
seam's scores, the primary-metric choice, the audit, tables, charts and the viewer read them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from recallbench.benchmarks.seam import Metric

STRICT_NA = "recorded before recallbench's strict metric, or a restore test"


def memory_value(record: Mapping[str, Any]) -> float:
    """The card's memory success of one run-log record as 0/1."""
    return 1.0 if record.get("memory") else 0.0


def strict_value(record: Mapping[str, Any]) -> float | None:
    """The strict metric of one run-log record as 0/1; None where it was not recorded (older
    runs, restore tests); a test that errored before any step fails it."""
    value = record.get("first_open_success")
    if value is None:
        return 0.0 if record.get("error") and record.get("task") != "restore" else None
    return 1.0 if value else 0.0


@dataclass(frozen=True)
class ScenememMetric(Metric):
    """A SceneMem metric and its code: ``value`` of one run-log record (None: n/a)."""

    value: Callable[[Mapping[str, Any]], float | None] = lambda record: None


METRICS: tuple[ScenememMetric, ...] = (
    ScenememMetric(
        "memory_success", "memory success",
        "approached the target fixture (base within the approach radius, 1.2 m by default) "
        "AND opened it (some listed joint |qpos| >= 0.5), at any step before max_steps; the "
        "SceneMem card's rule",
        value=memory_value),
    ScenememMetric(
        "first_open_success", "first-open success (recallbench)",
        "recallbench's own, stricter than the card: memory success AND the first fixture the "
        "agent opened past the threshold was the target",
        na_reason=STRICT_NA, value=strict_value),
)
METRIC_NAMES = tuple(m.name for m in METRICS)
BY_NAME = {m.name: m for m in METRICS}


def case_values(record: Mapping[str, Any]) -> dict[str, float | None]:
    """Every metric's value for one run-log record, in declaration order."""
    return {m.name: m.value(record) for m in METRICS}
