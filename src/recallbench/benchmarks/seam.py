"""The benchmark seam: what the runner, the scorer, the comparison, the report and the generator
may know about a benchmark, declared once per benchmark.

Each benchmark package exposes one ``BENCHMARK`` (``benchmarks/<name>/seam.py``), listed in
``recallbench.benchmarks.registry`` (built-ins) or published under the entry-point group
``recallbench.benchmarks``. Code above this layer asks the seam (metrics, slices, how to
recognise and load a suite, how to score recorded cases) instead of branching on a name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recallbench.benchmarks.options import Option
from recallbench.errors import shorten

# One recorded case (a run-log line) and one scored row (metric values + slice fields + failure).
Record = dict[str, Any]
Row = dict[str, Any]


@dataclass(frozen=True)
class Metric:
    """One metric, declared once: scoring, summary.json, tables, charts and the viewer read it."""

    name: str  # the key in rows and summaries, e.g. "hl_sr"
    label: str  # how tables and charts title it, e.g. "HL-SR"
    definition: str  # one sentence a reader can check a case against
    na_reason: str | None = None  # why it can be n/a (None: it always has a value)
    note: str | None = None  # a line under any table or chart that shows it


@dataclass(frozen=True)
class ScoreInput:
    """What scoring a run needs, read from its folder by the report layer."""

    manifest: Mapping[str, Any]
    records: Mapping[str, Record]  # case key -> its latest record
    runner_summary: Mapping[str, Any]  # what the runner itself wrote to summary.json
    scoring: str  # "published" or "official"
    suite: Any = None  # an already loaded suite, or None to load it from the manifest
    subset: bool = False  # score only recorded cases (else a planned, unrecorded case fails)
    metrics: tuple[Metric, ...] = ()  # the benchmark's declared metrics (its own when empty)


@dataclass(frozen=True)
class Benchmark:
    name: str  # "scenemem"; also the registry role of the thing evaluated on it
    title: str  # "SceneMem"
    metrics: tuple[Metric, ...]  # the first is the primary score
    slices: Mapping[str, str]  # row field -> what a breakdown by it is called
    is_suite: Callable[[Path], bool]  # does this path hold a suite of this benchmark
    load_suite: Callable[[Path], Any]
    case_keys: Callable[[Any], list[str]]  # a loaded suite's case keys, in run order
    score: Callable[[ScoreInput], list[Row]]  # one row per planned case
    no_answer: Callable[[Record], str | None]  # why a case got no answer at all, or None
    # the manifest fields a resumed run must share with the settings asked for
    run_settings: tuple[str, ...] = ()
    # figures beside the metrics for a comparison's note (e.g. mean steps to success)
    run_notes: Callable[[Mapping[str, Record]], dict[str, Any]] = lambda records: {}
    # the suite folder a run's manifest names, and the metric that suite names as its primary
    # score (a generated SceneMem suite names recallbench's strict one), or None: metrics[0]
    suite_of: Callable[[Mapping[str, Any]], Path | None] = lambda manifest: None
    suite_primary: Callable[[Path], str | None] = lambda suite: None
    # row fields that are counts, not rates: averaged (with intervals) where present, beside
    # the metrics in summary.json, never as a % column; field -> what it is
    figures: Mapping[str, str] = field(default_factory=dict)
    # --- issue 24, seam: the pieces upper layers run or show for this benchmark, named by
    # "module:attr" (loaded with loader.load_attr by the layer that needs them: a string is not
    # an import), and the plain data the viewer and the report read, so no code above this
    # layer branches on a benchmark's name
    auditor: str | None = None  # its suite audit module (audit.core: audit(), plot())
    case_reader: str | None = None  # "module:attr": its viewer case pages, run_cases()
    generator: str | None = None  # "module:attr": its generate.registry.Generator
    # "module:attr": the ``register(subparsers)`` adding ``recallbench <name>``, its own command
    # (a plugin's can be ``cli.card.card_command``'s); None: none
    command: str | None = None
    viewer_slices: Mapping[str, str] = field(default_factory=dict)  # viewer row field -> title
    suite_files: str = ""  # what a suite of it holds, for an error naming what was not found
    viewer_page: str = "frames"  # how viewer.js draws a case: "frames" chosen, or a "rollout"
    # the command line that finishes an interrupted run from its manifest and folder, or None
    finish_command: Callable[[Mapping[str, Any], Path], list[str]] | None = None
    # --- issue 24 (runner): one runner per benchmark, from its declared options ---
    # the run layer's runner object, named (``module:attr``), loaded where it is needed
    runner: str = ""
    # its options, as data (benchmarks.options): every command derives its flags from them
    options: tuple[Option, ...] = ()
    # the methods a class needs to run as an agent on it (agents.registry roles), for a
    # benchmark the agent registry does not list itself
    agent_methods: tuple[str, ...] = ()

    @property
    def primary(self) -> str:
        return self.metrics[0].name

    def metric_names(self, suite: Path | None = None) -> tuple[str, ...]:
        """The metrics, the suite's own primary one first when it names one."""
        names = tuple(m.name for m in self.metrics)
        primary = self.suite_primary(suite) if suite is not None else None
        return tuple(sorted(names, key=lambda m: m != primary)) if primary in names else names

    def labels(self) -> dict[str, str]:
        return {m.name: m.label for m in self.metrics}

    def definitions(self) -> dict[str, str]:
        return {m.name: m.definition for m in self.metrics}

    @property
    def na_reasons(self) -> dict[str, str]:
        """metric -> why it can be n/a, for the metrics that can be."""
        return {m.name: m.na_reason for m in self.metrics if m.na_reason}

    def notes(self, shown: Iterable[str]) -> list[str]:
        """The notes of the ``shown`` metrics, in declaration order."""
        names = set(shown)
        return [m.note for m in self.metrics if m.note and m.name in names]


def first_error(record: Record) -> str | None:
    """The first ``*error`` field a record (or its ``info``) carries, shortened for a line."""
    info = record.get("info")
    extra = info.items() if isinstance(info, dict) else ()
    items: Iterable[tuple[str, Any]] = (*record.items(), *extra)
    return next((f"{k}: {shorten(str(v), 300)}" for k, v in items if k.endswith("error") and v),
                None)
