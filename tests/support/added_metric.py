"""A FindingDory metric added from outside ``src/``: one declaration plus its code, plugged into
the registered benchmark the way a new entry in ``benchmarks/findingdory/metrics.METRICS`` would
be. Scoring, summary.json, tables, charts and the viewer must all show it with nothing else
edited."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from recallbench.benchmarks import registry
from recallbench.benchmarks.findingdory import seam
from recallbench.benchmarks.findingdory.metrics import CaseFacts, FindingDoryMetric


def answered(facts: CaseFacts) -> float | None:
    """1 when the agent's answer parsed (right or wrong), 0 when it did not or is missing; n/a
    for a case whose answers index a subsampled video (the public file)."""
    if facts.case.answer_frames is not None:
        return None
    if facts.record is None:
        return 0.0
    return 0.0 if facts.row["failure"] in ("response_error", "missing") else 1.0


ANSWERED = FindingDoryMetric(
    "answered_rate", "answered (test)",
    "the agent's answer parsed into frame indices, right or wrong",
    na_reason="added by the tests: n/a on subsampled-answer suites",
    note="answered (test): a metric declared in tests/support only",
    value=answered,
)


@contextmanager
def declared(metric: FindingDoryMetric = ANSWERED) -> Iterator[None]:
    """The registered FindingDory benchmark with ``metric`` appended to its declared metrics."""
    original = seam.BENCHMARK
    seam.BENCHMARK = replace(original, metrics=(*original.metrics, metric))
    registry._builtin.cache_clear()
    registry._benchmarks.cache_clear()
    try:
        yield
    finally:
        seam.BENCHMARK = original
        registry._builtin.cache_clear()
        registry._benchmarks.cache_clear()
