"""ToyBench's case pages for the viewer (``Benchmark.case_reader``): one (index row, detail) per
recorded case, graded by the benchmark's own ``grade``; the detail has the fields the viewer's
"frames" page draws (offered frames, the valid and the chosen position, scores)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toybench.seam import grade, planned
from toybench.suite import answer, load_suite

from recallbench.run.manifest import read_manifest
from recallbench.run.runlog import RUN_LOG, completed


def run_cases(run_dir: Path, agent: str, thumbs: Any,
              shared: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    manifest = read_manifest(run_dir)
    target = manifest["target_colour"]
    cases = planned(load_suite(Path(manifest["data"])), manifest.get("limit"),
                    manifest.get("shard"))
    records = completed(run_dir / RUN_LOG)
    shared.setdefault("_facts", {})["toybench"] = {"cases": len(cases), "colour asked": target}
    for case in cases:
        record = records.get(case["id"])
        if record is None:
            continue
        row = grade(case, record, target)
        frame = record.get("frame")
        valid = answer(case, target)
        yield {
            "bench": "toybench", "agent": agent, "id": case["id"], "category": target,
            "group": str(len(case["frames"])), "kind": "toy",
            "success": bool(row["accuracy"]), "failure": row["failure"] or "",
            "text": f"which frame shows {target}?",
        }, {
            "question": f"which frame shows {target}?", "template": "toy", "ordered": False,
            "answer": [[valid]], "answer_frames": None, "frames": case["frames"],
            "offered": list(range(len(case["frames"]))), "valid_positions": [valid],
            "chosen": [frame] if isinstance(frame, int) else [], "strip": None, "pairs": [],
            "failure": row["failure"], "parse_error": None,
            "metrics": {"accuracy": row["accuracy"]},
            "transcript": {"agent_error": record.get("error")}, "ll": None,
        }
