"""Agent-comparison outputs from a ``comparison.json`` (``report.comparison``): one rich table
per benchmark and one bar chart per benchmark (95% bootstrap intervals as error bars). Reads the
comparison only, never a run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.benchmarks import registry
from recallbench.benchmarks.seam import Benchmark
from recallbench.io import replace_atomic
from recallbench.report.tables import fmt, interval_table
from recallbench.report.viewer.sources import REASONS_SEP

# Beside a privileged agent's name (it reads ground truth), explained under the table.
PRIVILEGED_MARK = "*"


def privileged_note(block: Mapping[str, Any]) -> str | None:
    """The line under a table saying which agents read ground truth, as the pages do: each
    reason once, after the agents it holds for (e.g. every agent whose LL phase drove with the
    privileged navigation policy)."""
    agents: dict[str, list[str]] = {}
    for a in block["agents"]:
        for reason in (a.get("privileged") or "").split(REASONS_SEP):
            if reason:
                agents.setdefault(reason, []).append(a["agent"])
    if not agents:
        return None
    told = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in agents.items())
    return (f"{PRIVILEGED_MARK} privileged, reads ground truth: a ceiling, not a memory result "
            f"({told})")


def _declared(bench: str) -> Benchmark | None:
    """The benchmark a comparison names, or None when it is no longer installed."""
    return registry.BENCHMARKS.get(bench)  # read now: a registry of this moment


def title(bench: str) -> str:
    declared = _declared(bench)
    return declared.title if declared else bench


def label(bench: str, metric: str) -> str:
    """The metric's label as its benchmark declares it (its key when undeclared)."""
    declared = _declared(bench)
    return declared.labels().get(metric, metric) if declared else metric


def metric_notes(bench: str, block: Mapping[str, Any]) -> list[str]:
    """The declared notes of the metrics a benchmark's table or chart shows."""
    declared = _declared(bench)
    return declared.notes(shown_metrics(block)) if declared else []


def shown_metrics(block: Mapping[str, Any]) -> list[str]:
    """Metrics with a value for at least one agent (n/a columns are left out)."""
    return [m for m in block["metrics"]
            if any((a["metrics"].get(m) or {}).get("value") is not None for a in block["agents"])]


def table_rows(bench: str, block: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a benchmark's table, as plain strings (shared by terminal and HTML)."""
    metrics = shown_metrics(block)
    header = ["agent", "n", *(f"{label(bench, m)} % [95% CI]" for m in metrics), "note"]
    rows = []
    for a in block["agents"]:
        name = f"{a['agent']} {PRIVILEGED_MARK}" if a.get("privileged") else a["agent"]
        if a["status"] != "ok":
            rows.append([name, "-", *("-" for _ in metrics), f"{a['status']}: {a['note']}"])
            continue
        note = a.get("note") or ""
        extra = a.get("extra") or {}
        if extra.get("errors"):
            note = f"{extra['errors']} errors; " + note
        if extra.get("mean_steps_to_success") is not None:
            note = f"{extra['mean_steps_to_success']:.0f} steps to success (mean); " + note
        if extra.get("failures"):
            note += ", ".join(f"{k}={v}" for k, v in sorted(extra["failures"].items()))
        rows.append([name, str(a["n"]),
                     *(fmt(a["metrics"].get(m) or {"value": None}, digits=1) for m in metrics),
                     note.strip("; ")])
    return header, rows


def print_comparison(comparison: Mapping[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    for bench, block in comparison["benchmarks"].items():
        header, rows = table_rows(bench, block)
        notes = [privileged_note(block), *metric_notes(bench, block)]
        caption = "\n".join(n for n in notes if n) or None
        heading = f"{title(bench)}: {block['suite']}"
        console.print(interval_table(heading, header, rows, width=console.width, note_col=True,
                                     caption=caption))


def plot_benchmark(bench: str, block: Mapping[str, Any], path: Path) -> Path | None:
    """The benchmark's chart (``benchmark_figure``) as a PNG at ``path``; None when nothing to
    draw."""
    import matplotlib.pyplot as plt

    fig = benchmark_figure(bench, block)
    if fig is None:
        return None
    replace_atomic(path, lambda f: fig.savefig(f, format="png", bbox_inches="tight"))
    plt.close(fig)
    return path


def benchmark_figure(bench: str, block: Mapping[str, Any]) -> Any:
    """Grouped bars: agents on x, one bar per metric, 95% intervals as error bars; the legend
    (outside the plot, so it covers no bar) names every colour, the whiskers, the numbers on the
    bars and the privileged mark, as the tables do."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.lines import Line2D

    metrics = shown_metrics(block)
    agents = [a for a in block["agents"] if a["status"] == "ok"]
    if not metrics or not agents:
        return None
    width = 0.8 / len(metrics)
    x = np.arange(len(agents))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(agents) + 2) + 2.6, 3.8), dpi=110)
    for k, m in enumerate(metrics):
        vals, lo, hi = [], [], []
        for a in agents:
            s = a["metrics"].get(m) or {}
            v = s.get("value")
            vals.append(100 * v if v is not None else np.nan)
            lo.append(100 * (v - s["lo"]) if v is not None else 0.0)
            hi.append(100 * (s["hi"] - v) if v is not None else 0.0)
        pos = x + (k - (len(metrics) - 1) / 2) * width
        bars = ax.bar(pos, vals, width * 0.95, yerr=[lo, hi], capsize=3, label=label(bench, m))
        for b, v, up in zip(bars, vals, hi, strict=True):
            if np.isnan(v):
                continue
            inside = v >= 8  # small bars get their value above the error bar, in dark text
            ax.annotate(f"{v:.0f}", (b.get_x() + b.get_width() / 2, 1 if inside else v + up + 1),
                        ha="center", va="bottom", fontsize=8,
                        color="white" if inside else "black")
    ax.set_xticks(x)
    ax.set_xticklabels([f"{a['agent']}{' ' + PRIVILEGED_MARK if a.get('privileged') else ''}"
                        f"\n(n={a['n']})" for a in agents], fontsize=8)
    ax.set_ylim(0, 105)
    ax.set_ylabel(("" if len(metrics) > 1 else label(bench, metrics[0]) + " ") + "% (95% CI)")
    ax.set_title(title(bench))
    handles: list[Any] = list(ax.get_legend_handles_labels()[0])
    handles.append(ax.errorbar([], [], yerr=[], fmt="none", ecolor="black", capsize=3,
                               label="95% interval (bootstrap)"))
    handles.append(Line2D([], [], linestyle="none", label="numbers: value in %"))
    if any(a.get("privileged") for a in agents):
        handles.append(Line2D([], [], linestyle="none",
                              label=f"{PRIVILEGED_MARK} privileged: reads ground truth"))
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0.0, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    if notes := metric_notes(bench, block):
        ax.set_xlabel("\n".join(notes), fontsize=7, color="dimgray")
    fig.tight_layout()
    return fig
