"""Render summaries as rich tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table


def fmt(summary: Mapping[str, Any], *, percent: bool = True) -> str:
    if summary.get("value") is None:
        return "n/a"
    scale = 100.0 if percent else 1.0
    v, lo, hi = (summary["value"] * scale, summary["lo"] * scale, summary["hi"] * scale)
    return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


def summary_table(
    title: str,
    blocks: Mapping[str, Mapping[str, Any]],
    metrics: Sequence[str],
    *,
    label: str = "slice",
) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column(label)
    table.add_column("n", justify="right")
    for m in metrics:
        table.add_column(f"{m} % [95% CI]", justify="right")
    for name, block in blocks.items():
        table.add_row(name, str(block["n"]), *(fmt(block[m]) for m in metrics))
    return table


def print_summary(
    summary: Mapping[str, Any],
    metrics: Sequence[str],
    *,
    console: Console | None = None,
    slices: Sequence[str] = ("group", "category"),
) -> None:
    console = console or Console()
    shown = [m for m in metrics if summary["overall"][m].get("value") is not None]
    console.print(summary_table("Overall", {"all": summary["overall"]}, shown))
    for key in slices:
        console.print(summary_table(f"By {key}", summary[f"by_{key}"], shown, label=key))
    for m in metrics:
        reason = summary["overall"][m].get("na_reason")
        if reason:
            console.print(f"[dim]{m}: n/a - {reason}[/dim]")
    failures = summary["overall"].get("failures") or {}
    if failures:
        console.print(
            "failure modes: " + ", ".join(f"{k}={v}" for k, v in sorted(failures.items()))
        )
