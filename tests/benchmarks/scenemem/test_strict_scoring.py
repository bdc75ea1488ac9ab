"""The strict metric through the runner and the report: recorded per probe in the run log,
aggregated with intervals beside memory_success, and first when the suite names it primary."""

from __future__ import annotations

import json

import pytest

from recallbench.report.runs import score_run
from recallbench.run.runlog import completed
from recallbench.run.scenemem import ScenememConfig, normalise, run_scenemem
from support.kitchen import search_order_suite

pytest.importorskip("recallbench.world.env")
SEARCH = "recallbench.agents.scenemem_baselines:MemorylessSearchPolicy"


@pytest.mark.slow
def test_search_run_is_scored_on_both_metrics(tmp_path):
    data = search_order_suite(tmp_path / "data")
    config = normalise(ScenememConfig(data_dir=str(data), policy=SEARCH,
                                      out=str(tmp_path / "results.json"), camera_obs=False))
    run_dir = tmp_path / "run"
    assert run_scenemem(config, run_dir, workers=1) == 0
    records = {r["test_id"]: r for r in completed(run_dir / "runlog.jsonl").values()}
    assert records["target_mug"]["memory"] and not records["target_mug"]["first_open_success"]
    assert records["target_mug"]["fixtures_opened_before_success"] == 1
    assert records["target_bowl"]["first_open_success"]
    runner = json.loads((run_dir / "summary.json").read_text())
    assert runner["by_fixture_type"]["toaster_oven"]["first_open_rate"] == 0.0
    assert runner["by_fixture_type"]["microwave"]["first_open_rate"] == 1.0

    summary = score_run(run_dir)
    assert summary["metrics"] == ["memory_success", "first_open_success"]
    overall = summary["overall"]
    assert overall["memory_success"]["value"] == 1.0
    assert overall["first_open_success"]["value"] == 0.5
    assert overall["first_open_success"]["lo"] <= 0.5 <= overall["first_open_success"]["hi"]
    assert summary["by_fixture_type"]["toaster_oven"]["first_open_success"]["value"] == 0.0
    assert summary["fixtures_opened_before_success"]["value"] == 0.5

    # a generated suite that names the strict metric primary: it comes first in the report
    (data / "suite.json").write_text(json.dumps({"benchmark": "scenemem",
                                                 "primary_metric": "first_open_success"}))
    assert score_run(run_dir)["metrics"] == ["first_open_success", "memory_success"]
