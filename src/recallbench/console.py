"""Console output that fits the width it is printed at (80 columns, a pipe, a CI log).

``fit_table``: a table whose columns do not fit is split over several tables, each starting with
the key columns (the name), so no column is dropped or cut to "…"; text columns wrap.
``progress``: a progress bar whose count and elapsed time always show in full; the label and the
last item's text are what gets shortened.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from rich.console import Console, Group, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

T = TypeVar("T")
WRAP_MIN = 20  # a wrapping text column is never made narrower than this (if its text is longer)
LABEL_MAX = 24  # a progress bar's label (e.g. a long module:Class agent) is cut past this
BAR_WIDTH = 20


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return max((cell_len(line) for line in str(text).split("\n")), default=0)


def fit_table(title: str | None, header: Sequence[str], rows: Sequence[Sequence[str]], *,
              width: int, keys: int = 1, wrap: Collection[int] = (),
              right: Collection[int] = (), ends: Collection[int] = (),
              caption: str | None = None) -> RenderableType:
    """One table when it fits ``width``, else several ``(k/N)`` tables, each with the first
    ``keys`` columns and as many of the others as fit. Columns in ``wrap`` are text that wraps
    (long words fold), the others never wrap; ``right``: right-justified columns; ``ends``: rows
    that end a section (a rule under them)."""
    natural = [max(_cells(r[i]) for r in [header, *rows]) for i in range(len(header))]
    need = [min(w, WRAP_MIN) if i in wrap else w for i, w in enumerate(natural)]
    base = 1 + sum(need[i] + 3 for i in range(keys))  # the left border, each column's padding
    groups: list[list[int]] = [[]]
    used = base
    for i in range(keys, len(header)):
        if groups[-1] and used + need[i] + 3 > width:
            groups.append([])
            used = base
        groups[-1].append(i)
        used += need[i] + 3
    tables = []
    for k, group in enumerate(groups):
        cols = [*range(keys), *group]
        part = f"{title} ({k + 1}/{len(groups)})" if title and len(groups) > 1 else title
        table = Table(title=part, title_justify="left", caption_justify="left",
                      caption=caption if k == len(groups) - 1 else None)
        for i in cols:
            table.add_column(header[i], justify="right" if i in right else "left",
                             no_wrap=i not in wrap, overflow="fold",
                             min_width=need[i] if i in wrap else natural[i])
        for n, row in enumerate(rows):
            table.add_row(*(row[i] for i in cols), end_section=n in ends)
        tables.append(table)
    return tables[0] if len(tables) == 1 else Group(*tables)


def progress(label: str, console: Console, *, detail: bool = False,
             transient: bool = False) -> Progress:
    """``label ━━━━ 3/10 0:00:05 [detail]``: count and time never cut at 80 columns; a long
    label is cut to LABEL_MAX and the detail (``task.fields["last"]``) takes what is left."""
    label = label if len(label) <= LABEL_MAX else label[:LABEL_MAX - 1] + "…"
    columns: list[Any] = [
        TextColumn(label, markup=False, table_column=Column(no_wrap=True)),
        BarColumn(bar_width=BAR_WIDTH),
        MofNCompleteColumn(table_column=Column(no_wrap=True)),
        TimeElapsedColumn(table_column=Column(no_wrap=True)),
    ]
    if detail:
        # what is left beside a count of up to 99999/99999 and the time (rich would squeeze
        # every column, the count too, to fit a detail that is too long)
        room = console.width - len(label) - BAR_WIDTH - len("99999/99999 0:00:00") - 4
        columns.append(TextColumn("{task.fields[last]}", markup=False, table_column=Column(
            no_wrap=True, overflow="ellipsis", max_width=max(room, 1))))
    return Progress(*columns, console=console, transient=transient)


def tracker(label: str, console: Console, *,
            transient: bool = False) -> Callable[[Iterable[T], int], Iterator[T]]:
    """``progress`` as a wrapper of an iterable of known length (as ``rich.progress.track``)."""

    def track(items: Iterable[T], total: int) -> Iterator[T]:
        with progress(label, console, transient=transient) as bar:
            yield from bar.track(items, total=total)
    return track
