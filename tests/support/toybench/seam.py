"""ToyBench's declaration: everything recallbench's commands need to know about it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toybench.options import OPTIONS
from toybench.suite import FILE, answer, is_suite, load_suite

from recallbench.benchmarks.options import resume_keys
from recallbench.benchmarks.seam import Benchmark, Metric, Record, Row, ScoreInput, first_error
from recallbench.executor.shards import parse_shard


def planned(cases: list[dict[str, Any]], limit: int | None,
            shard: str | None) -> list[dict[str, Any]]:
    """The cases a run asks about: the first ``limit``, then this shard's part."""
    cases = cases[:limit] if limit else cases
    part = parse_shard(shard)
    return [c for c in cases if part is None or part.picks(c["id"])]


def grade(case: dict[str, Any], record: Record, target: str) -> Row:
    """One recorded case's row (the scorer's, the viewer's and the audit's)."""
    right = record.get("frame") == answer(case, target)
    failure = "error" if record.get("error") else (None if right else "wrong frame")
    return {"accuracy": 1.0 if right else 0.0, "colour": target, "failure": failure}


def score(given: ScoreInput) -> list[Row]:
    manifest = given.manifest
    cases = given.suite or load_suite(Path(manifest["data"]))
    rows: list[Row] = []
    for case in planned(cases, manifest.get("limit"), manifest.get("shard")):
        record = given.records.get(case["id"])
        if record is None:
            if not given.subset:
                rows.append({"accuracy": 0.0, "failure": "missing"})
            continue
        rows.append(grade(case, record, manifest["target_colour"]))
    return rows


def no_answer(record: Record) -> str | None:
    return (first_error(record) or "error") if record.get("error") else None


BENCHMARK = Benchmark(
    name="toybench",
    title="ToyBench",
    metrics=(Metric("accuracy", "accuracy", "the chosen frame shows the asked colour"),),
    slices={"colour": "colour asked"},
    is_suite=is_suite,
    load_suite=load_suite,
    case_keys=lambda cases: [c["id"] for c in cases],
    score=score,
    no_answer=no_answer,
    run_settings=("data", "agent", *resume_keys(OPTIONS)),  # its suite and agent, then options
    suite_of=lambda manifest: Path(manifest["data"]) if manifest.get("data") else None,
    runner="toybench.runner:RUNNER",
    options=OPTIONS,
    agent_methods=("pick_frame",),
    # view and audit: named, loaded by the layer that shows or audits it
    case_reader="toybench.viewer:run_cases",
    viewer_slices={"category": "colour asked", "group": "frames per case"},
    viewer_page="frames",
    auditor="toybench.audit",
    suite_files=FILE,
    generator="toybench.generate:GENERATOR",  # `recallbench generate toybench`
    command="toybench.command:register",  # `recallbench toybench`
)
