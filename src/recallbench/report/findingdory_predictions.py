"""Score predictions made elsewhere (``findingdory score``) into a summary, as a run's own
records would score: the benchmark's declared metrics, its n/a reasons, the same aggregation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.data import Suite
from recallbench.benchmarks.findingdory.evaluate import score_records
from recallbench.benchmarks.findingdory.metrics import FindingDoryMetric, Scoring
from recallbench.benchmarks.findingdory.predictions import prediction_records, read_predictions
from recallbench.benchmarks.registry import get_benchmark
from recallbench.report.aggregate import summarize


def score_predictions(suite: Suite, predictions: str | Path, *, frames: int, scoring: Scoring,
                      subset: bool) -> dict[str, Any]:
    """The summary of a predictions file over ``suite`` (K = ``frames`` where a prediction names
    no offered frames); a case without a prediction fails (``missing``) unless ``subset``."""
    preds = read_predictions(Path(predictions))
    records = prediction_records(suite, preds, predictions, frames)
    bench = get_benchmark("findingdory")
    metrics = [m for m in bench.metrics if isinstance(m, FindingDoryMetric)]
    rows = score_records(suite, records, scoring=scoring, subset=subset, metrics=metrics)
    summary = summarize(rows, bench.metric_names(), na_reasons=bench.na_reasons)
    summary.update(
        scoring=scoring,
        frames=frames,
        cases_total=len(suite.cases),
        cases_recorded=len(records),
        cases_scored=len(rows),
        missing=len(suite.cases) - len(records),
        subset=subset,
        predictions=str(predictions),
    )
    return summary
