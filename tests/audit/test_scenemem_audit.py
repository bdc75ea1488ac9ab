"""The SceneMem suite audit on a real two-probe kitchen suite: the four policies run through the
SceneMem runner, both metrics per fixture type with intervals, the checks (judged only from
MIN_N probes), a JSON-able report and a PNG."""

from __future__ import annotations

import json

import matplotlib.image as mpimg
import pytest
from rich.console import Console

from recallbench.audit import scenemem as audit_scenemem
from recallbench.errors import InputError
from support.kitchen import search_order_suite

pytestmark = pytest.mark.slow  # real rollouts or generation: minutes, not seconds

pytest.importorskip("recallbench.world.env")


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    root = tmp_path_factory.mktemp("audit")
    data = search_order_suite(root / "data")
    report = audit_scenemem.audit(data, workers=2, run_root=root / "runs")
    return data, root, report


def test_report_shape_and_rates(audited):
    data, _, report = audited
    json.dumps(report, allow_nan=False)  # JSON-able as audit.json
    assert report["benchmark"] == "scenemem" and report["n"] == 2 and report["min_n"] == 40
    assert report["metric"] == "memory_success"  # no suite.json: the card's metric
    agents = report["agents"]
    assert set(agents) == {"memoryless-search", "random-fixture", "do-nothing", "oracle"}
    assert agents["oracle"]["overall"]["rate"] == 1.0 and report["oracle_ceiling"]["n"] == 2
    assert agents["do-nothing"]["overall"]["rate"] == 0.0
    search = agents["memoryless-search"]
    assert search["memory_success"]["overall"]["rate"] == 1.0
    assert search["first_open_success"]["overall"]["rate"] == 0.5
    assert search["first_open_success"]["groups"]["toaster_oven"]["rate"] == 0.0
    assert search["fixtures_opened_before_success"] == {"mean": 0.5, "n": 2}
    lo, hi = search["first_open_success"]["overall"]["lo"], search["first_open_success"][
        "overall"]["hi"]
    assert 0.0 < lo < 0.5 < hi < 1.0  # a Wilson interval, wide at n=2
    assert report["fixture_mix"] == {"microwave": {"n": 1, "share": 0.5},
                                     "toaster_oven": {"n": 1, "share": 0.5}}


def test_too_small_to_judge_passes_but_a_judged_suite_fails(audited, monkeypatch):
    data, root, report = audited
    crossed = {c["name"] for c in report["checks"] if not c["passed"]}
    assert "memoryless-search memory_success <= 25%" in crossed
    assert not report["judged"] and report["passed"]
    monkeypatch.setattr(audit_scenemem, "MIN_N", 2)
    # the kept run folders are resumed: nothing runs again
    judged = audit_scenemem.audit(data, workers=1, run_root=root / "runs")
    assert judged["judged"] and not judged["passed"]
    oracle = next(c for c in judged["checks"] if c["name"].startswith("oracle"))
    assert oracle["passed"] and oracle["value"] == 1.0


def test_primary_metric_from_suite_json(audited):
    data, root, _ = audited
    (data / "suite.json").write_text(json.dumps({"benchmark": "scenemem",
                                                 "primary_metric": "first_open_success"}))
    try:
        report = audit_scenemem.audit(data, workers=1, run_root=root / "runs")
    finally:
        (data / "suite.json").unlink()
    assert report["metric"] == "first_open_success"
    assert report["agents"]["memoryless-search"]["overall"]["rate"] == 0.5


def test_plot_and_table(audited, tmp_path):
    _, _, report = audited
    png = tmp_path / "audit.png"
    audit_scenemem.plot(report, png)
    img = mpimg.imread(png)
    assert img.shape[0] > 300 and img.shape[1] > 800
    console = Console(record=True, width=160)
    console.print(audit_scenemem.table(report))
    text = console.export_text()
    assert "memoryless-search" in text and "toaster_oven" in text and "50.0" in text


def test_not_a_scenemem_suite_is_one_line(tmp_path):
    with pytest.raises(InputError, match="no combo_"):
        audit_scenemem.audit(tmp_path)
