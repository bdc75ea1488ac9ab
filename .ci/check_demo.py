"""Checks the main job's report as a user would read it: both benchmarks scored (n > 0), each
privileged oracle at its ceiling (FindingDory: within 1 point of the suite's solvable share;
SceneMem: 95% or more), and each memory agent's paired gain over its memoryless baseline with a
95% interval above zero (the demo's suites are sized for it). Exit 1 naming what is off."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from recallbench.benchmarks.findingdory.data import load_suite
from recallbench.report.viewer.site import read_overview

# benchmark -> the memory agent whose gain over the memoryless baseline must exclude zero
MEMORY_AGENTS = {"scenemem": "hierarchical", "findingdory": "text-memory"}


def solvable_at(case, k: int) -> bool:
    """Every goal has a valid frame among the K offered (linspace subsampling, as the paper)."""
    if case.answer_frames is not None:  # answers already index the offered frames
        return case.solvable
    offered = set(np.linspace(0, case.num_frames - 1, k, dtype=int).tolist())
    return all(-1 not in sub and offered.intersection(sub) for sub in case.answer)


def main(demo: Path) -> int:
    comparison = json.loads((demo / "comparison" / "comparison.json").read_text())
    problems = []
    oracle = {}
    for bench in ("scenemem", "findingdory"):
        block = comparison["benchmarks"].get(bench)
        if not block:
            problems.append(f"{bench}: missing from the report")
            continue
        agents = {a["agent"]: a for a in block["agents"]}
        scored = [a for a in agents.values() if a["status"] == "ok" and a["n"] > 0]
        if not scored:
            problems.append(f"{bench}: no agent scored (n = 0)")
        o = agents.get("oracle")
        if o is None or o["status"] != "ok":
            problems.append(f"{bench}: oracle did not run ({o and o['note']})")
            continue
        oracle[bench] = o["metrics"][block["primary"]]["value"]
    if "scenemem" in oracle and oracle["scenemem"] < 0.95:
        problems.append(f"scenemem: oracle {oracle['scenemem']:.1%} < 95%")
    if "findingdory" in oracle:
        k = comparison["benchmarks"]["findingdory"]["options"]["frames"]  # each benchmark's own
        suite = load_suite(demo / "suites" / "findingdory")
        solvable = sum(solvable_at(c, k) for c in suite.cases) / len(suite.cases)
        if abs(oracle["findingdory"] - solvable) > 0.01:
            problems.append(f"findingdory: oracle HL-SR {oracle['findingdory']:.1%} vs solvable "
                            f"share {solvable:.1%}")
    problems += gain_problems(demo)
    for p in problems:
        print(f"check_demo: {p}", file=sys.stderr)
    print(f"check_demo: oracle {oracle}; {'FAILED' if problems else 'ok'}")
    return 1 if problems else 0


def gain_problems(demo: Path) -> list[str]:
    """The report's paired gains (the viewer's overview, which report.html shows)."""
    overview = read_overview(demo / "comparison" / "viewer") or {}
    problems = []
    for bench, agent in MEMORY_AGENTS.items():
        paired = ((overview.get("benchmarks") or {}).get(bench) or {}).get("paired") or {}
        gain = next((g for g in paired.get("gains") or [] if g.get("agent") == agent), None)
        if gain is None or gain.get("lo") is None:
            problems.append(f"{bench}: no paired gain of {agent} in the report")
        elif gain["lo"] <= 0:
            problems.append(f"{bench}: {agent} - {gain['baseline']} = {gain['diff']:+.3f} "
                            f"[{gain['lo']:+.3f}, {gain['hi']:+.3f}] does not exclude zero")
        else:
            print(f"check_demo: {bench}: {agent} - {gain['baseline']} on {paired['metric']} = "
                  f"{gain['diff']:+.3f} [{gain['lo']:+.3f}, {gain['hi']:+.3f}], n={gain['n']}")
    return problems


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
