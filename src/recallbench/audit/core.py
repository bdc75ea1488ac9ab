"""What every suite audit shares: which benchmark a suite is, rates with intervals, judging the
threshold checks, and writing ``audit.json`` + ``audit.png``.

An audit module (one per benchmark, named by its declaration: ``Benchmark.auditor``) exposes
``audit(suite_dir, *, console=None, **opts) -> dict``, ``plot(report, png_path)`` and
``OPTIONS``, the command-line options its ``audit`` takes (``scoring``, ``workers``). The report
is JSON-able: ``benchmark``, ``suite``, ``n``, ``judged``, ``min_n``, ``agents`` ({name:
{"overall": rate, "groups": {name: rate}}}), ``checks`` ([{name, value, limit, passed}]) and
``passed``. One rule for every benchmark: an audit module declares ``MIN_N``, the size from
which it judges a suite, counted in its ``UNIT`` by its ``suite_size`` (SceneMem: 40 probes;
FindingDory: 2 episodes, as its blind, question-only and time-prior agents learn
leave-one-episode-out, which one episode leaves them nothing to learn from). A smaller suite is
not judged: ``too_small`` says so before any work, and ``recallbench generate`` and
``recallbench audit`` both refuse to audit it. FindingDory judges against val's own subsets of
the suite's size (``findingdory_calibration``), and its checks add ``z``, ``percentile``,
``power`` and ``val_mean``.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recallbench.benchmarks.registry import BENCHMARKS
from recallbench.errors import InputError
from recallbench.io import write_json_atomic

REPORT_FILE = "audit.json"
PLOT_FILE = "audit.png"
Z95 = 1.959963984540054


def rate(successes: Sequence[float]) -> dict[str, Any]:
    """Mean of 0/1 outcomes with its Wilson 95% interval (exact enough at n >= 1, and never
    outside [0, 1], unlike the normal approximation on small groups)."""
    n = len(successes)
    if n == 0:
        return {"rate": None, "lo": None, "hi": None, "n": 0}
    p = float(sum(successes)) / n
    denom = 1 + Z95**2 / n
    centre = (p + Z95**2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / denom
    # the interval holds its rate even where rounding puts an end a hair past it (p = 0 or 1)
    lo, hi = min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))
    return {"rate": p, "lo": lo, "hi": hi, "n": n}


def check(name: str, value: float, limit: float, passed: bool) -> dict[str, Any]:
    return {"name": name, "value": value, "limit": limit, "passed": bool(passed)}


def judge(report: dict[str, Any], size: int | None = None) -> dict[str, Any]:
    """Fill ``judged`` and ``passed``: a suite whose ``size`` (default its ``n`` items) is below
    ``min_n`` passes unjudged."""
    report["judged"] = (report["n"] if size is None else size) >= report["min_n"]
    report["passed"] = not report["judged"] or all(c["passed"] for c in report["checks"])
    return report


def detect_benchmark(suite: Path) -> str:
    """The benchmark a suite folder (or FindingDory QA file) holds: the one its suite.json
    names, else the one that recognises its files; a path that is none is a one-line user
    error."""
    if not suite.exists():
        raise InputError(suite, None, "no such suite folder or QA file")
    manifest = suite / "suite.json"
    if suite.is_dir() and manifest.is_file():
        try:
            name = json.loads(manifest.read_text()).get("benchmark")
        except (json.JSONDecodeError, AttributeError):
            raise InputError(manifest, "benchmark", "not a JSON object") from None
        if name in BENCHMARKS and BENCHMARKS[name].auditor:
            return str(name)
    found = next((b.name for b in BENCHMARKS.values() if b.auditor and b.is_suite(suite)), None)
    if found is None:
        kinds = " nor ".join(f"a {b.title} suite ({b.suite_files})" for b in BENCHMARKS.values()
                             if b.auditor)
        raise InputError(suite, None, f"neither {kinds}")
    return found


def auditor(benchmark: str) -> Any:
    name = BENCHMARKS[benchmark].auditor
    try:
        if name is None:
            raise ModuleNotFoundError(name=name)
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        message = f"no audit for {benchmark} suites in this install"
        raise InputError("SUITE", None, message) from None


@dataclass(frozen=True)
class SuiteSize:
    """A suite's size as its audit counts it, and the least it judges."""

    benchmark: str
    n: int  # in ``unit``
    min_n: int
    unit: str  # "probes", "episodes", "items"
    items: int  # what generation counts (scenarios, days): how many to make for ``min_n``
    item: str = "item"  # what one is called

    @property
    def items_needed(self) -> int:
        """Items of this suite's kind that make ``min_n`` (at its own count per item)."""
        return max(math.ceil(self.min_n * self.items / self.n), 1) if self.n else self.min_n


def too_small(suite: Path) -> SuiteSize | None:
    """The suite's size when its audit cannot judge it (below the audit's ``MIN_N``), else None.
    Cheap (the suite's files are read, nothing runs): checked before any audit work."""
    bench = detect_benchmark(suite)
    module = auditor(bench)
    min_n = getattr(module, "MIN_N", None)
    if not min_n:
        return None
    sized = getattr(module, "suite_size", None)
    if sized is not None:
        n, items = sized(suite)
    else:  # an audit that counts items: the benchmark's cases
        seam = BENCHMARKS[bench]
        n = items = len(seam.case_keys(seam.load_suite(suite)))
    size = SuiteSize(bench, n, int(min_n), getattr(module, "UNIT", "items"), items,
                     getattr(module, "ITEM", "item"))
    return size if n < size.min_n else None


def run_audit(suite: Path, *, console: Any = None, **opts: Any) -> dict[str, Any]:
    """Audit a suite of either benchmark."""
    return auditor(detect_benchmark(suite)).audit(suite, console=console, **opts)


def write_report(report: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """``audit.json`` and ``audit.png`` in ``out_dir`` (created)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, png_path = out_dir / REPORT_FILE, out_dir / PLOT_FILE
    write_json_atomic(json_path, report)
    auditor(report["benchmark"]).plot(report, png_path)
    return json_path, png_path


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """The few lines of an audit a suite manifest keeps."""
    return {
        "n": report["n"],
        "judged": report["judged"],
        "passed": report["passed"],
        "failed_checks": [c["name"] for c in report["checks"] if not c["passed"]],
        "agents": {name: a["overall"]["rate"] for name, a in report["agents"].items()},
    }
