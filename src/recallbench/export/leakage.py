"""The leakage rule: no training day may be a day of an evaluation suite.

A training day leaks into an evaluation suite when it has the same home and seed (kind, layout,
style, seed: ``generate.fingerprint.home_key``) as one of the suite's days, the same digest or
the same content (an identical day made any other way), or the same video. ``recallbench export
--exclude SUITE`` refuses such an export before any work; ``recallbench audit --against DIR``
reports every overlap.

Days are read from generated suites, their fingerprints recomputed from the days' files every
time (a recorded fingerprint that disagrees is a warning naming its file, never trusted), and
from exports (``export.json``'s ``days``, recomputed when the export was made), so either side
may be a suite or an export.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from recallbench.errors import InputError, UsageError, print_problem
from recallbench.generate.fingerprint import MISMATCH, Fingerprint, home_key
from recallbench.generate.registry import generators
from recallbench.io import read_json

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


Warn = Callable[[str], None]


def days_of(folder: str | Path, flag: str | None = None, warn: Warn = print_problem) -> list[Day]:
    """The days of a generated suite or an export folder; a folder that is neither (or that
    holds no fingerprints) is a one-line error naming ``flag``. A suite's fingerprints are
    recomputed; each recorded one that disagrees is passed to ``warn``."""
    path = Path(folder)
    export = path / EXPORT_FILE
    if export.is_file():
        try:
            days = read_json(export)["days"]
            return [(str(d["name"]), dict(d["fingerprint"])) for d in days]
        except (KeyError, TypeError) as exc:
            raise InputError(export, "days", f"unreadable: {exc}") from None
    manifest = path / SUITE_FILE
    if not manifest.is_file():
        where = f"{flag} {path}" if flag else str(path)
        raise InputError(where, None, "not a generated suite or an export (no suite.json or "
                         "export.json): only generated days carry fingerprints")
    data = read_json(manifest)
    benchmark = data.get("benchmark") if isinstance(data, dict) else None
    made = generators()  # the benchmarks whose days recallbench generates, and reads
    if not isinstance(benchmark, str) or benchmark not in made:
        raise InputError(manifest, "benchmark", f"unknown benchmark {benchmark!r}")
    try:
        days = made[benchmark].days(path)
    except InputError:
        raise
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(path, "fingerprint", f"a day's files are unreadable: {exc}") from None
    for _, fp in days:
        if MISMATCH in fp:
            warn(str(fp.pop(MISMATCH)))
    return days


def overlaps(days: list[Day], others: dict[str, list[Day]]) -> list[Overlap]:
    """Every (day, other suite's day) pair that breaks the rule, in ``days`` order."""
    found = []
    for suite, theirs in others.items():
        index = _index(theirs)
        for name, fp in days:
            for key, reason in _RULES:
                value = home_key(fp) if key == "home" else fp.get(key)
                if value is not None and value in index[key]:
                    found.append(Overlap(name, suite, index[key][value], reason))
                    break
    return found


# What makes two days one, strongest first: the day's record, its content, its video, its home.
_RULES = (("digest", "identical day"), ("content", "identical day"), ("video", "same video"),
          ("home", "same layout+style+seed"))


def _index(days: list[Day]) -> dict[str, dict[object, str]]:
    """rule key -> value -> the first day holding it."""
    index: dict[str, dict[object, str]] = {key: {} for key, _ in _RULES}
    for name, fp in days:
        for key, _ in _RULES:
            value = home_key(fp) if key == "home" else fp.get(key)
            if value is not None:
                index[key].setdefault(value, name)
    return index


def excluded_days(paths: list[str], flag: str = "--exclude") -> dict[str, list[Day]]:
    return {str(Path(p).resolve()): days_of(p, flag) for p in paths}


def refuse_overlap(days: list[Day], excluded: dict[str, list[Day]]) -> None:
    """Raise the one-line error for the first day of ``days`` found in an excluded suite."""
    found = overlaps(days, excluded)
    if found:
        more = f" (and {len(found) - 1} more overlaps)" if len(found) > 1 else ""
        raise UsageError("--exclude", f"leakage: {found[0].line()}{more}; "
                         "export other days or drop them from the suite")
