"""Every colour and mark of the comparison charts (PNG) and of the case viewer's charts is
explained by a legend: the metrics, the interval whiskers, the privileged mark; the viewer's
breakdown bars and SceneMem map say what each colour, ring and dashed line is."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources

import pytest

from recallbench.report.compare import PRIVILEGED_MARK, benchmark_figure, label


def _agent(name: str, rates: dict[str, float], privileged: str | None = None) -> dict:
    return {"agent": name, "status": "ok", "n": 12, "privileged": privileged,
            "metrics": {m: {"value": v, "lo": max(v - 0.2, 0.0), "hi": min(v + 0.2, 1.0), "n": 12}
                        for m, v in rates.items()}}


@pytest.mark.parametrize("metrics", [["memory_success"], ["hl_sr", "dtg_sr", "hl_spl"]])
def test_the_chart_legend_names_colours_whiskers_and_the_privileged_mark(metrics):
    bench = "scenemem" if metrics == ["memory_success"] else "findingdory"
    block = {"metrics": metrics, "agents": [
        _agent("oracle", dict.fromkeys(metrics, 0.9), privileged="reads the answers"),
        _agent("blind", dict.fromkeys(metrics, 0.1))]}
    fig = benchmark_figure(bench, block)
    ax = fig.axes[0]
    legend = ax.get_legend()
    assert legend is not None  # one metric too: the whiskers and the mark need saying
    texts = [t.get_text() for t in legend.get_texts()]
    assert [label(bench, m) for m in metrics] == texts[:len(metrics)]
    assert any("95% interval" in t for t in texts), texts
    assert any(t.startswith(f"{PRIVILEGED_MARK} privileged") for t in texts), texts
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[0].startswith(f"oracle {PRIVILEGED_MARK}") and "*" not in ticks[1]
    fig.canvas.draw()  # the legend sits beside the plot: it covers no bar or whisker
    box, plot = legend.get_window_extent(), ax.get_window_extent()
    assert box.x0 >= plot.x1, (box, plot)


NODE = shutil.which("node")
# viewer.js in a bare JS context (no browser): its chart functions return HTML strings
SCRIPT = """
const vm = require("vm"), fs = require("fs");
const ctx = { location: { protocol: "file:" }, window: { addEventListener() {} },
  document: { createElement: () => ({}), head: { appendChild() {} },
              getElementById: () => ({}) }, console };
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), ctx);
const args = JSON.parse(process.argv[3]);
vm.runInContext("OV = {benchmarks: {}, agents: []};", ctx);
ctx.args = args;
const bars = vm.runInContext("barChart('t', args.names, args.agents, args.cells)", ctx);
const scenemem = vm.runInContext("renderSceneMem(args.case)", ctx);
process.stdout.write(JSON.stringify({ bars, scenemem }));
"""


@pytest.mark.skipif(NODE is None, reason="needs node to run the viewer's script")
def test_the_viewer_legends_explain_every_mark(tmp_path):
    viewer_js = resources.files("recallbench.report.viewer").joinpath("static", "viewer.js")
    cell = {"value": 0.5, "lo": 0.2, "hi": 0.8, "n": 4}
    trace = {"step": [0, 1, 2], "base": [[0, 0, 0], [1, 0, 0], [2, 1, 0]],
             "distance": [2.0, 1.5, 0.9], "joints": ["door"], "qpos": [[0.0, 0.1, 0.4]],
             "target": "fridge", "fixtures": {"fridge": [2, 1], "oven": [0, 2], "sink": [1, 2]},
             "rooms": [{"name": "kitchen", "bounds": [-1, -1, 3, 3]}]}
    case = {"detail": {"instruction": "Show me where the mug is.", "chosen_fixture": "oven",
                       "thresholds": {"approach_dist": 1.2, "open_qpos": 0.3}, "trace": trace,
                       "steps": 2, "max_steps": 3}}
    args = {"names": ["fridge"], "agents": ["oracle", "blind"],
            "cells": {"fridge": {"oracle": cell, "blind": cell}}, "case": case}
    script = tmp_path / "render.js"
    script.write_text(SCRIPT)
    out = subprocess.run([NODE, str(script), str(viewer_js), json.dumps(args)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    shown = json.loads(out.stdout)
    bars_legend = shown["bars"].split("<svg")[0]
    assert "oracle" in bars_legend and "blind" in bars_legend
    assert "95% interval" in bars_legend  # the black whiskers
    legend = shown["scenemem"].split("Top-down map")[1].split("<svg")[0]
    for mark in ("target fixture", "fixture the agent chose", "other fixtures", "rooms",
                 "square: start, triangle: end", "success threshold"):
        assert mark in legend, (mark, legend)
