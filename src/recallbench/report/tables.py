"""Render summaries as rich tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.table import Table

NOTE_MIN = 20  # a note column narrower than this (words cut mid-way) gets a table of its own


def fmt(summary: Mapping[str, Any], *, percent: bool = True, digits: int = 2) -> str:
    """``95.22 [94.67, 95.75]``: value and 95% interval (percent by default), or ``n/a``."""
    if summary.get("value") is None:
        return "n/a"
    scale = 100.0 if percent else 1.0
    v, lo, hi = (summary[k] * scale for k in ("value", "lo", "hi"))
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def interval_table(
    title: str,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    width: int,
    note_col: bool = False,
    caption: str | None = None,
) -> RenderableType:
    """A table whose columns after the first two hold ``fmt`` cells (and, with ``note_col``, a
    free-text last column). One line per row when it fits ``width``; else each interval goes
    under its value, and if that is still too wide the metric columns are split over several
    tables, each starting with the name and ``n`` columns, so a narrow terminal or a pipe
    (80 columns) never drops the agent names or a metric, nor breaks "93.3 [87.8, 97.8]"
    mid-number. A note column that does not fit beside the metrics gets a table of its own."""
    end = len(header) - 1 if note_col else len(header)
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(end)]
    if sum(widths) + 3 * len(header) + (12 if note_col else 1) <= width:
        return _table(title, header, rows, caption, note_col)

    def stacked(row: Sequence[str]) -> list[str]:
        return [c.replace(" [", "\n[", 1) if 2 <= i < end else c for i, c in enumerate(row)]

    header, rows = stacked(header), [stacked(r) for r in rows]
    cell = [max(len(line) for r in [header, *rows] for line in str(r[i]).split("\n"))
            for i in range(len(header))]
    groups: list[list[int]] = [[]]
    used = cell[0] + cell[1] + 7  # borders and padding of the name and n columns
    for i in range(2, end):
        if groups[-1] and used + cell[i] + 3 > width:
            groups.append([])
            used = cell[0] + cell[1] + 7
        groups[-1].append(i)
        used += cell[i] + 3
    notes = note_col and any(str(r[-1]).strip() for r in rows)
    if notes and used + NOTE_MIN + 3 > width:  # the notes on their own, beside the names
        groups.append([])
    elif notes:
        groups[-1].append(len(header) - 1)
    elif note_col:
        note_col = False
    tables = []
    for k, group in enumerate(groups):
        cols = [0, 1, *group] if group else [0, len(header) - 1]
        part = f"{title} ({k + 1}/{len(groups)})" if len(groups) > 1 else title
        tables.append(_table(part, [header[i] for i in cols], [[r[i] for i in cols] for r in rows],
                             caption if k == len(groups) - 1 else None,
                             note_col and cols[-1] == len(header) - 1))
    return Group(*tables)


def _table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]],
           caption: str | None, note_col: bool) -> Table:
    table = Table(title=title, title_justify="left", caption=caption, caption_justify="left")
    for i, h in enumerate(header):
        if i == 0 or (note_col and i == len(header) - 1):  # names and notes wrap if they must
            table.add_column(h, justify="left", min_width=min(12, len(h)), overflow="fold")
        else:  # numbers never wrap or shrink
            cells = [str(r[i]) for r in [header, *rows]]
            longest = max(len(line) for c in cells for line in c.split("\n"))
            table.add_column(h, justify="right", no_wrap=True, min_width=longest)
    for row in rows:
        table.add_row(*row)
    return table


def summary_table(
    title: str,
    blocks: Mapping[str, Mapping[str, Any]],
    metrics: Sequence[str],
    *,
    label: str = "slice",
    width: int = 200,
) -> RenderableType:
    header = [label, "n", *(f"{m} % [95% CI]" for m in metrics)]
    rows = [[name, str(block["n"]), *(fmt(block[m]) for m in metrics)]
            for name, block in blocks.items()]
    return interval_table(title, header, rows, width=width)


def print_summary(
    summary: Mapping[str, Any],
    metrics: Sequence[str],
    *,
    console: Console | None = None,
    slices: Sequence[str] = ("group", "category"),
) -> None:
    console = console or Console()
    shown = [m for m in metrics if summary["overall"][m].get("value") is not None]
    w = console.width
    console.print(summary_table("Overall", {"all": summary["overall"]}, shown, width=w))
    for key in slices:
        console.print(summary_table(f"By {key}", summary[f"by_{key}"], shown, label=key, width=w))
    for m in metrics:
        reason = summary["overall"][m].get("na_reason")
        if reason:
            console.print(f"[dim]{m}: n/a - {reason}[/dim]")
    failures = summary["overall"].get("failures") or {}
    if failures:
        console.print(
            "failure modes: " + ", ".join(f"{k}={v}" for k, v in sorted(failures.items()))
        )
