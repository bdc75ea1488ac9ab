"""How a FindingDory audit is shown: a rich table and a PNG of shortcut rates vs validation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import RenderableType

from recallbench.audit.findingdory_calibration import AUDITED_AGENTS as AGENTS
from recallbench.benchmarks.findingdory.templates import CATEGORY_GROUP
from recallbench.console import fit_table


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _pair(mine: dict[str, Any] | None, val: dict[str, Any] | None) -> str:
    return f"{_pct((mine or {}).get('rate'))}/{_pct((val or {}).get('rate'))}"


def rates_table(report: dict[str, Any], width: int = 80) -> RenderableType:
    """One row per category (then per group and overall): mix, valid-window width, unsolvable
    share and each agent's HL-SR, every cell "suite / val" in percent; split over several tables
    (each with the slice and n) where ``width`` holds fewer columns."""
    ref = report["reference"]
    title = (f"FindingDory audit: {report['n']} questions, K={report['k']}, {report['scoring']} "
             "scoring; cells: suite/val (%)")
    header = ["slice", "n", "mix", "width", "unsolv.", *AGENTS]
    rows: list[list[str]] = []
    for cat in CATEGORY_GROUP:
        mine, val = report["categories"].get(cat), ref["categories"].get(cat)
        if mine is None and val is None:
            continue
        cells = [f"{_pct((mine or {}).get(k))}/{_pct((val or {}).get(k))}"
                 for k in ("share", "width", "unsolvable")]
        agents = [_pair(report["agents"][a]["categories"].get(cat),
                        ref["agents"][a]["categories"].get(cat)) for a in AGENTS]
        rows.append([cat, str((mine or {}).get("n", 0)), *cells, *agents])
    ends = {len(rows) - 1}
    for group in sorted(set(CATEGORY_GROUP.values())):
        agents = [_pair(report["agents"][a]["groups"].get(group),
                        ref["agents"][a]["groups"].get(group)) for a in AGENTS]
        n = report["agents"]["oracle"]["groups"].get(group, {}).get("n", 0)
        rows.append([group, str(n), "", "", "", *agents])
    ends.add(len(rows) - 1)
    unsolvable = f"{_pct(report['unsolvable'])}/{_pct(ref['unsolvable'])}"
    agents = [_pair(report["agents"][a]["overall"], ref["agents"][a]["overall"]) for a in AGENTS]
    tv = f"TV {report['category_tv']:.3f}"
    rows.append(["overall", str(report["n"]), tv, "", unsolvable, *agents])
    return fit_table(title, header, rows, width=width, keys=2, right=range(1, len(header)),
                     ends=ends)


def plot_rates(report: dict[str, Any], png_path: Path) -> Path:
    """Per agent, a panel of HL-SR by category: the suite's bars (95% interval) beside val's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    ref = report["reference"]
    cats = [c for c in CATEGORY_GROUP if c in report["categories"] or c in ref["categories"]]
    fig, axes = plt.subplots(len(AGENTS), 1, figsize=(11, 2.3 * len(AGENTS)), sharex=True)
    x = np.arange(len(cats))
    for ax, name in zip(axes, AGENTS, strict=True):
        for shift, source, label, colour in ((-0.2, report, "suite", "tab:red"),
                                             (0.2, ref, "public val", "tab:gray")):
            rates = [source["agents"][name]["categories"].get(c, {}) for c in cats]
            y = np.array([100 * (r.get("rate") or 0.0) for r in rates])
            lo = np.array([100 * (r.get("lo") or 0.0) for r in rates])
            hi = np.array([100 * (r.get("hi") or 0.0) for r in rates])
            ax.bar(x + shift, y, 0.4, label=label, color=colour,
                   yerr=np.vstack([np.maximum(0, y - lo), np.maximum(0, hi - y)]), capsize=2)
        overall = report["agents"][name]["overall"]["rate"] or 0.0
        ax.set_ylabel("HL-SR %")
        ax.set_title(f"{name}: suite {100 * overall:.1f}% vs val "
                     f"{100 * ref['agents'][name]['overall']['rate']:.1f}% overall",
                     fontsize=9, loc="left")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(loc="upper right", fontsize=8)
    axes[-1].set_xticks(x, cats, rotation=30, ha="right", fontsize=8)
    verdict = ("too small to judge" if not report["judged"]
               else "passes" if report["passed"] else "FAILS")
    fig.suptitle(f"FindingDory audit of {Path(report['suite']).name} ({report['n']} questions): "
                 f"{verdict}", fontsize=11)
    fig.tight_layout()
    png_path = Path(png_path)
    fig.savefig(png_path, dpi=90)
    plt.close(fig)
    return png_path
