"""A metric is declared once (issue 39): a FindingDory metric added in tests/support (one
declaration plus its code, nothing in src/ edited) is scored, written to summary.json, shown in
the comparison's tables (terminal and HTML) with its note, drawn in the chart and shown by the
viewer, with its label and definition wherever the built-ins have theirs."""

from __future__ import annotations

import json
import re
from html import escape

import pytest

from recallbench.cli import main
from recallbench.report.compare import benchmark_figure
from support.added_metric import ANSWERED, declared
from support.findingdory_suite import build_suite


@pytest.mark.slow  # a real comparison: two agents' runs, charts, report and viewer (~10 s)
def test_a_metric_added_in_one_declaration_reaches_every_output(tmp_path, capsys, monkeypatch):
    suite = build_suite(tmp_path / "suite")
    out = tmp_path / "cmp"
    monkeypatch.setenv("COLUMNS", "400")  # one line per table row: the header is matchable
    with declared():
        assert main(["run", "--suite", str(suite), "--agents", "oracle,blind", "--frames", "40",
                     "--workers", "1", "--out", str(out)]) == 0
        shown = capsys.readouterr()
        comparison = json.loads((out / "comparison.json").read_text())
        block = comparison["benchmarks"]["findingdory"]
        ax = benchmark_figure("findingdory", block).axes[0]
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        fig_note = ax.get_xlabel()
    # scored by its own code, in summary.json beside the built-ins (after them, as declared)
    for agent, expected in (("oracle", 1.0), ("blind", None)):
        summary = json.loads((out / "findingdory" / agent / "summary.json").read_text())
        assert summary["metrics"][-1] == "answered_rate"
        assert summary["metrics"][:2] == ["hl_sr", "dtg_sr"]
        value = summary["overall"]["answered_rate"]["value"]
        assert value is not None and (expected is None or value == expected), (agent, value)
    assert block["metrics"][-1] == "answered_rate"
    # the terminal's table: its label as a column, its note under the table
    text = shown.out + shown.err
    assert f"{ANSWERED.label} % [95% CI]" in text, text
    assert ANSWERED.note in text
    # the chart: a legend entry by its label, its note under the plot
    assert ANSWERED.label in legend
    assert ANSWERED.note is not None and ANSWERED.note in fig_note
    # report.html: the column and the definition
    html = (out / "report.html").read_text()
    assert f"{ANSWERED.label} % [95% CI]" in html
    assert escape(ANSWERED.definition) in html
    # the viewer: the overview's label and definition, and each case page's score
    data = out / "viewer" / "data"
    overview = (data / "overview.js").read_text()
    assert ANSWERED.label in overview and ANSWERED.definition in overview
    cases = "".join(p.read_text() for p in sorted(data.glob("cases-*.js")))
    scores = re.findall(r'"answered_rate":(null|[0-9.]+)', cases)
    assert len(scores) == 2 * 12 and set(scores) <= {"0.0", "1.0"}, scores[:5]


def test_without_the_declaration_the_metric_is_nowhere(tmp_path):
    """The same run with the benchmark as shipped: the added metric is not scored or shown, so
    what the first test sees comes from the one declaration and nothing else."""
    from recallbench.benchmarks.registry import get_benchmark

    with declared():
        assert "answered_rate" in get_benchmark("findingdory").metric_names()
    assert "answered_rate" not in get_benchmark("findingdory").metric_names()
