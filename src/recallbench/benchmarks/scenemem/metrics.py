"""SceneMem's metrics, declared once: the seam, the primary-metric choice, the audit, tables,
charts and the viewer read them from here."""

from __future__ import annotations

from recallbench.benchmarks.seam import Metric

STRICT_NA = "recorded before recallbench's strict metric, or a restore test"

METRICS = (
    Metric("memory_success", "memory success",
           "approached the target fixture (base within the approach radius, 1.2 m by default) "
           "AND opened it (some listed joint |qpos| >= 0.5), at any step before max_steps; the "
           "SceneMem card's rule"),
    Metric("first_open_success", "first-open success (recallbench)",
           "recallbench's own, stricter than the card: memory success AND the first fixture the "
           "agent opened past the threshold was the target",
           na_reason=STRICT_NA),
)
METRIC_NAMES = tuple(m.name for m in METRICS)
