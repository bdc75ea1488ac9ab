"""`findingdory score` is parsing, printing and writing only (issue 39): its scoring is the
report layer's public ``score_predictions``, and what the command writes is that summary."""

from __future__ import annotations

import json

from recallbench.benchmarks.findingdory.data import load_suite
from recallbench.cli import main
from recallbench.report.findingdory_predictions import score_predictions
from recallbench.report.runs import finite
from support.findingdory_suite import build_suite


def test_the_command_writes_what_score_predictions_returns(tmp_path, capsys) -> None:
    suite_dir = build_suite(tmp_path / "suite")
    suite = load_suite(suite_dir)
    preds = tmp_path / "preds.jsonl"
    cases = suite.cases[:-2]  # two cases without a prediction: missing, failures
    preds.write_text("".join(
        json.dumps({"id": c.id, "frame_indices": [i % 40] * c.num_targets}) + "\n"
        if i % 3 else json.dumps({"id": c.id, "response": "no idea"}) + "\n"
        for i, c in enumerate(cases)))
    for scoring in ("published", "official"):
        out = tmp_path / f"{scoring}.json"
        assert main(["findingdory", "score", "--data", str(suite_dir), "--predictions",
                     str(preds), "--frames", "40", "--scoring", scoring, "--out",
                     str(out)]) == 0
        summary = score_predictions(suite, str(preds), frames=40, scoring=scoring,
                                    subset=False)
        assert json.loads(out.read_text()) == json.loads(json.dumps(finite(summary)))
        assert summary["missing"] == 2 and summary["cases_recorded"] == len(cases)
        assert summary["overall"]["failures"]["missing"] == 2
    assert "2 of 12 cases have no prediction" in capsys.readouterr().err
