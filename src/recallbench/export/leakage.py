"""The leakage rule: no training day may be a day of an evaluation suite.

A training day leaks into an evaluation suite when it has the same home and seed (kind, layout,
style, seed: ``generate.fingerprint.home_key``) as one of the suite's days, or the same digest
(an identical day made any other way). ``recallbench export --exclude SUITE`` refuses such an
export before any work; ``recallbench audit --against DIR`` reports every overlap.

Days are read from generated suites (their recorded fingerprints, rebuilt for older suites) and
from exports (``export.json``'s ``days``), so either side may be a suite or an export.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from recallbench.errors import InputError, UsageError
from recallbench.generate.fingerprint import Fingerprint, home_key
from recallbench.generate.registry import generators

EXPORT_FILE = "export.json"
SUITE_FILE = "suite.json"

Day = tuple[str, Fingerprint]  # (day name in its suite, fingerprint)


@dataclass(frozen=True)
class Overlap:
    day: str  # the day of the checked data
    suite: str  # the other folder
    other: str  # its day
    reason: str  # "same layout+style+seed" or "identical day"

    def line(self) -> str:
        return f"day {self.day} is {self.other} of {self.suite} ({self.reason})"


def days_of(folder: str | Path, flag: str | None = None) -> list[Day]:
    """The days of a generated suite or an export folder; a folder that is neither (or that
    holds no fingerprints) is a one-line error naming ``flag``."""
    path = Path(folder)
    export = path / EXPORT_FILE
    if export.is_file():
        try:
            days = json.loads(export.read_text())["days"]
            return [(str(d["name"]), dict(d["fingerprint"])) for d in days]
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(export, "days", f"unreadable: {exc}") from None
    manifest = path / SUITE_FILE
    if not manifest.is_file():
        where = f"{flag} {path}" if flag else str(path)
        raise InputError(where, None, "not a generated suite or an export (no suite.json or "
                         "export.json): only generated days carry fingerprints")
    try:
        benchmark = json.loads(manifest.read_text()).get("benchmark")
    except ValueError as exc:
        raise InputError(manifest, None, f"malformed JSON: {exc}") from None
    made = generators()  # the benchmarks whose days recallbench generates, and reads
    if not isinstance(benchmark, str) or benchmark not in made:
        raise InputError(manifest, "benchmark", f"unknown benchmark {benchmark!r}")
    try:
        return made[benchmark].days(path)
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(path, "fingerprint", f"a day's files are unreadable: {exc}") from None


def overlaps(days: list[Day], others: dict[str, list[Day]]) -> list[Overlap]:
    """Every (day, other suite's day) pair that breaks the rule, in ``days`` order."""
    found = []
    for suite, theirs in others.items():
        by_home = {home_key(fp): name for name, fp in theirs}
        by_digest = {fp["digest"]: name for name, fp in theirs}
        for name, fp in days:
            if fp["digest"] in by_digest:
                found.append(Overlap(name, suite, by_digest[fp["digest"]], "identical day"))
            elif home_key(fp) in by_home:
                found.append(Overlap(name, suite, by_home[home_key(fp)],
                                     "same layout+style+seed"))
    return found


def excluded_days(paths: list[str], flag: str = "--exclude") -> dict[str, list[Day]]:
    return {str(Path(p).resolve()): days_of(p, flag) for p in paths}


def refuse_overlap(days: list[Day], excluded: dict[str, list[Day]]) -> None:
    """Raise the one-line error for the first day of ``days`` found in an excluded suite."""
    found = overlaps(days, excluded)
    if found:
        more = f" (and {len(found) - 1} more overlaps)" if len(found) > 1 else ""
        raise UsageError("--exclude", f"leakage: {found[0].line()}{more}; "
                         "export other days or drop them from the suite")
