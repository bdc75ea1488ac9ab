"""Result tables at 80 columns and in a pipe (CI logs): every agent name and every metric column
is shown, and ``--format json|csv`` gives the same rows to scripts."""

from __future__ import annotations

import csv
import html
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recallbench.report.compare import label, shown_metrics
from support.findingdory_suite import build_suite

pytestmark = pytest.mark.slow  # a real comparison run in the module fixture

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
AGENTS = ("oracle", "blind", "random", "recency")


@pytest.fixture(scope="module")
def compared(tmp_path_factory) -> tuple[Path, str]:
    """A real comparison on a generated-style suite, its console output read through a pipe at
    COLUMNS=80."""
    root = tmp_path_factory.mktemp("narrow")
    suite = build_suite(root / "suite")
    out = root / "cmp"
    proc = subprocess.run([RECALLBENCH, "run", "--suite", str(suite), "--agents",
                           ",".join(AGENTS), "--frames", "40", "--out", str(out)],
                          env={**os.environ, "COLUMNS": "80"}, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout + proc.stderr


def test_an_80_column_comparison_keeps_agent_names_and_every_metric(compared):
    out, text = compared
    assert max(len(line) for line in text.splitlines()) <= 80
    block = json.loads((out / "comparison.json").read_text())["benchmarks"]["findingdory"]
    metrics = shown_metrics(block)
    assert len(metrics) >= 4  # wide enough that one 80-column table cannot hold it
    table_lines = [line for line in text.splitlines() if line.startswith("│")]
    for agent in AGENTS:
        assert any(line.startswith(f"│ {agent} ") for line in table_lines), (agent, text)
    # the oracle reads ground truth: marked as the pages mark it, the reason under the table
    assert any(line.startswith("│ oracle * ") for line in table_lines), text
    assert "* privileged, reads ground truth: a ceiling, not a memory result (oracle: reads" \
        in " ".join(text.split())
    assert not any(line.startswith(("│ blind *", "│ random *")) for line in table_lines)
    for metric in metrics:
        assert f"{label('findingdory', metric)} %" in text, (metric, text)


def test_format_csv_and_json_give_the_rows_the_table_shows(compared):
    out, _ = compared
    comparison = json.loads((out / "comparison.json").read_text())
    run = out / "findingdory" / "oracle"
    proc = subprocess.run([RECALLBENCH, "report", str(run), "--format", "csv"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    overall = {r["metric"]: r for r in rows if r["table"] == "overall"}
    hl = comparison["benchmarks"]["findingdory"]["agents"][0]["metrics"]["hl_sr"]
    assert float(overall["hl_sr"]["value"]) == hl["value"]
    assert float(overall["hl_sr"]["lo"]) == pytest.approx(hl["lo"])
    proc = subprocess.run([RECALLBENCH, "list", "agents", "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    assert {"oracle", "blind"} <= {r["name"] for r in json.loads(proc.stdout)}


def _overview(viewer: Path) -> dict:
    text = (viewer / "data" / "overview.js").read_text()
    return json.loads(text[text.index(",") + 1:text.rindex(")")])


@pytest.mark.slow  # a 300-question run and its viewer: ~12 s on a busy 2-core machine
def test_one_interval_per_number_in_summary_viewer_and_report(tmp_path, compared):
    """The same numbers used to get different 95% intervals in summary.json (metrics bootstrapped
    together) and in the viewer (one at a time); report.html had no metric definitions."""
    from support.shared_data import FINDINGDORY_VAL_QA

    run = tmp_path / "fd"
    proc = subprocess.run([RECALLBENCH, "findingdory", "--data", str(FINDINGDORY_VAL_QA),
                           "--agent", "random", "--limit", "300", "--out", str(run)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run([RECALLBENCH, "view", str(run)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((run / "summary.json").read_text())["overall"]
    viewed = _overview(run / "viewer")["benchmarks"]["findingdory"]["agents"]["random"]["metrics"]
    shown = [m for m, v in viewed.items() if v.get("value") is not None]
    assert "relaxed_acc" in shown  # a fractional metric beside 0/1 ones
    for metric in shown:
        assert (viewed[metric]["lo"], viewed[metric]["hi"]) == (
            summary[metric]["lo"], summary[metric]["hi"]), metric
    out, _ = compared  # the comparison's report carries the viewer's definitions
    report = (out / "report.html").read_text()
    definitions = _overview(out / "viewer")["benchmarks"]["findingdory"]["definitions"]
    for definition in definitions.values():
        assert html.escape(definition) in report
