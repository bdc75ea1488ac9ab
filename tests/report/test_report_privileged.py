"""report.html marks agents whose numbers rest on privileged information, as the viewer does: an
agent that reads ground truth, and any agent whose FindingDory LL phase drove with a privileged
navigation policy (``greedy``: the simulator's map and the chosen frames' recorded poses), with
the legend under the table explaining the mark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recallbench.cli import main
from recallbench.report.compare import PRIVILEGED_MARK, privileged_note
from recallbench.report.viewer.sources import RunRef, privileged_reason
from support.browser import BROWSER_ARGS, CHROMIUM, browser_api

GREEDY = "recallbench.agents.ll_policies:GreedyFramePolicy"  # what a module:Class spec records


def test_a_run_driven_by_a_privileged_navigation_policy_is_privileged():
    def reason(agent: str, ll_policy: str | None) -> str | None:
        manifest = {"agent": agent, "agent_kind": "random", "ll_policy": ll_policy}
        return privileged_reason(RunRef("findingdory", agent, None, manifest=manifest))

    assert "greedy" in (reason("random", "greedy") or "")
    assert "simulator's map" in (reason("random", GREEDY) or "")
    assert reason("random", "stop") is None and reason("random", None) is None
    # each reason said once, after every agent it holds for
    block = {"agents": [{"agent": "oracle", "privileged": privileged_reason(RunRef(
        "findingdory", "oracle", None, manifest={"agent_kind": "privileged",
                                                 "ll_policy": "greedy"}))},
        {"agent": "random", "privileged": reason("random", "greedy")},
        {"agent": "blind", "privileged": None}]}
    note = privileged_note(block) or ""
    assert note.count("greedy") == 1 and "oracle, random: LL phase driven by greedy" in note
    assert "(oracle: reads the ground-truth answers" in note and "blind" not in note


def _agents(out: Path) -> dict[str, dict]:
    block = json.loads((out / "comparison.json").read_text())["benchmarks"]["findingdory"]
    return {a["agent"]: a for a in block["agents"]}


@pytest.mark.slow
def test_report_marks_agents_whose_ll_phase_used_the_simulators_map(
        findingdory_generated_suite: Path, tmp_path: Path) -> None:
    sync_api = browser_api()
    runs = {}
    for policy in ("greedy", "stop"):  # greedy is privileged, stop is not (agents.registry)
        out = tmp_path / policy
        assert main(["run", "--suite", str(findingdory_generated_suite), "--agents",
                     "random,blind", "--findingdory-ll", "--findingdory-ll-policy", policy,
                     "--findingdory-limit", "4", "--out", str(out), "--quiet"]) == 0
        runs[policy] = out
    greedy, stop = _agents(runs["greedy"]), _agents(runs["stop"])
    assert "greedy" in greedy["random"]["privileged"] and "greedy" in greedy["blind"]["privileged"]
    assert stop["random"]["privileged"] is None and stop["blind"]["privileged"] is None
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1100, "height": 800})
        for policy, out in runs.items():
            page.goto((out / "report.html").as_uri())
            page.screenshot(path=str(tmp_path / f"report_{policy}.png"), full_page=True)
            names = page.locator("table.agents tbody td:first-child").all_inner_texts()
            legend = page.locator("table.agents + p.meta")
            if policy == "greedy":
                assert names == [f"random {PRIVILEGED_MARK}", f"blind {PRIVILEGED_MARK}"]
                text = legend.inner_text()
                assert text.startswith(f"{PRIVILEGED_MARK} privileged"), text
                assert "random, blind: LL phase driven by greedy" in text
                assert "simulator's map" in text
                # the mark stays on the agent's line (the name column does not wrap)
                cell = page.locator("table.agents tbody td:first-child").first
                assert cell.evaluate("e => e.getClientRects().length") == 1
                assert cell.evaluate("e => getComputedStyle(e).whiteSpace") == "nowrap"
            else:
                assert names == ["random", "blind"]
                assert legend.count() == 0
        browser.close()
