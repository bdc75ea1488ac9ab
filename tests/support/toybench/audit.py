"""ToyBench's suite audit (``Benchmark.auditor``, the interface ``recallbench.audit.core``
expects): the agents that never look at the frames (random, always-the-first) answer every case
for every colour; a suite where either does clearly better than chance (one frame in N) for a
colour has a shortcut."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toybench.agents import ToyFirst, ToyRandom
from toybench.options import COLOURS
from toybench.seam import grade
from toybench.suite import load_suite

from recallbench.audit.core import check, judge, rate
from recallbench.seeding import case_seed

OPTIONS: tuple[str, ...] = ()  # the command-line options audit() takes
MIN_N = 10
MARGIN = 0.15  # over chance, a no-look agent's rate (lower interval end) past which it fails
SEED = 0


def audit(suite_dir: Path, *, console: Any = None) -> dict[str, Any]:
    cases = load_suite(suite_dir)
    agents: dict[str, Any] = {"toy-random": None, "toy-first": ToyFirst()}
    rows: dict[str, dict[str, list[float]]] = {name: {c: [] for c in COLOURS} for name in agents}
    for colour in COLOURS:
        for case in cases:
            for name, agent in agents.items():
                agent = agent or ToyRandom(case_seed(SEED, case["id"] + colour))
                frame = agent.pick_frame(list(case["frames"]), colour)
                rows[name][colour].append(grade(case, {"frame": frame}, colour)["accuracy"])
    chance = sum(1 / len(c["frames"]) for c in cases) / max(len(cases), 1)
    report: dict[str, Any] = {
        "benchmark": "toybench", "suite": str(suite_dir), "n": len(cases), "min_n": MIN_N,
        "chance": chance,
        "agents": {name: {"overall": rate([v for vs in by.values() for v in vs]),
                          "groups": {c: rate(vs) for c, vs in by.items()}}
                   for name, by in rows.items()},
    }
    # a rate past chance beyond its own 95% interval and a margin: the colour has a shortcut
    report["checks"] = [
        check(f"{name} on {colour}", r["lo"], chance + MARGIN, r["lo"] <= chance + MARGIN)
        for name, a in report["agents"].items() for colour, r in a["groups"].items()]
    return judge(report)


def plot(report: dict[str, Any], png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report["agents"])
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.bar(names, [100 * (report["agents"][n]["overall"]["rate"] or 0.0) for n in names])
    ax.axhline(100 * report["chance"], color="tab:green", ls=":", label="chance")
    ax.set_ylabel("% of cases")
    ax.legend()
    fig.savefig(png, dpi=80)
    plt.close(fig)
