"""FindingDory through the benchmark seam: its suites, its metrics and how recorded cases score."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.data import QACase, Suite, load_suite
from recallbench.benchmarks.findingdory.evaluate import score_records
from recallbench.benchmarks.findingdory.metrics import METRICS, FindingDoryMetric
from recallbench.benchmarks.findingdory.options import COMMAND, GENERATOR, OPTIONS
from recallbench.benchmarks.options import resume_keys
from recallbench.benchmarks.seam import Benchmark, Record, Row, ScoreInput, first_error
from recallbench.errors import InputError
from recallbench.executor.shards import Shard, parse_shard


def is_suite(path: Path) -> bool:
    return (path.is_dir() and (path / "qa.json").is_file()) or (
        path.is_file() and path.suffix in (".json", ".jsonl"))


def score(given: ScoreInput) -> list[Row]:
    """Rows for the run's planned cases (the first ``cases`` of the suite, as ``--limit`` ran
    them); a planned case without a record is a failure unless ``subset``."""
    manifest = given.manifest
    suite = given.suite
    if suite is None:
        suite = load_suite(manifest["data"])
        if manifest.get("data_sha256") and suite.sha256 != manifest["data_sha256"]:
            raise InputError(manifest["data"], None, "data changed since the run (sha256 differs)")
    planned = manifest.get("cases")
    cases = suite.cases[:planned] if isinstance(planned, int) else suite.cases
    if manifest.get("shard"):  # a shard's cases are its part of the first ``limit``
        cases = planned_cases(suite, manifest.get("limit"), parse_shard(manifest["shard"]))
    metrics = [m for m in given.metrics if isinstance(m, FindingDoryMetric)] or METRICS
    return score_records(suite, dict(given.records), scoring=given.scoring,  # type: ignore[arg-type]
                         cases=cases, subset=given.subset, metrics=metrics)


def planned_cases(suite: Suite, limit: int | None, shard: Shard | None) -> list[QACase]:
    """The cases a run asks about: the first ``limit``, of them ``shard``'s part."""
    cases = list(suite.cases[:limit] if limit else suite.cases)
    return [c for c in cases if shard.picks(c.id)] if shard else cases


def no_answer(record: Record) -> str | None:
    """No frame indices and no response: the agent raised, its input failed or its worker died
    (a wrong or unparsable answer is an answer)."""
    if record.get("frame_indices") is None and record.get("response") is None:
        return first_error(record) or "no answer recorded"
    return None


def case_keys(suite: Suite) -> list[str]:
    return [c.id for c in suite.cases]


def _load(path: Path) -> Any:
    return load_suite(path)


def finish_command(manifest: Mapping[str, Any], run_dir: Path) -> list[str]:
    """``recallbench findingdory`` with the settings the run recorded (a resume repeats them)."""
    words = ["recallbench", "findingdory", "--data", str(manifest.get("data")), "--agent",
             str(manifest.get("agent"))]
    for key, value in (manifest.get("agent_kwargs") or {}).items():
        words += ["--agent-arg", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    for flag, key in (("--videos", "videos"), ("--frames", "frames"), ("--seed", "seed"),
                      ("--limit", "limit"), ("--shard", "shard")):
        if manifest.get(key) is not None:
            words += [flag, str(manifest[key])]
    if manifest.get("ll_policy"):
        words += ["--ll", "--ll-policy", str(manifest["ll_policy"])]
    return [*words, "--out", str(run_dir), "--resume"]


BENCHMARK = Benchmark(
    name="findingdory",
    title="FindingDory",
    metrics=METRICS,
    slices={"group": "group", "category": "category", "template": "template"},
    is_suite=is_suite,
    load_suite=_load,
    case_keys=case_keys,
    score=score,
    no_answer=no_answer,
    run_settings=resume_keys(OPTIONS),
    auditor="recallbench.audit.findingdory",
    case_reader="recallbench.report.viewer.findingdory_cases:run_cases",
    generator=GENERATOR,
    command=COMMAND,
    viewer_slices={"category": "category", "group": "group", "kind": "template"},
    suite_files="qa.json, or a QA file",
    viewer_page="frames",
    finish_command=finish_command,
    runner="recallbench.run.findingdory_runner:RUNNER",
    options=OPTIONS,
)
