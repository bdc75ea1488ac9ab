"""A benchmark's options, declared once as data (issue 24).

Each benchmark lists its ``Option``s in ``benchmarks/<name>/options.py``. The command line derives
its flags from them (``recallbench <benchmark> --NAME``; ``recallbench run --<benchmark>-NAME``)
and its runner builds one typed config object from their values (``build_config``), so an option
is added in one place and reaches every command.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, TypeVar

# The commands an option can be offered on: the benchmark's own command and `recallbench run`.
BENCHMARK_COMMAND = "benchmark"
RUN_COMMAND = "run"
BOTH = (BENCHMARK_COMMAND, RUN_COMMAND)


def seed(text: str) -> int:
    """An option ``type`` for every seed flag: numpy's generators take integers >= 0 only
    (``--seed -1`` used to fail as an internal error after the run's work). A ValueError, as
    ``int``'s: argparse names the flag and the value (no argparse below the command line)."""
    value = int(text)
    if value < 0:
        raise ValueError(f"must be >= 0, got {value}")
    return value


@dataclass(frozen=True)
class Option:
    """One option: its config field, value type, default and help.

    ``kind``: "value" (one typed value), "flag" (present or not: the value is ``const``),
    "pairs" (repeatable ``KEY=VALUE``, JSON values, collected into a dict)."""

    name: str  # snake_case: the config field; the flag is its kebab-case spelling
    help: str
    type: Callable[[str], Any] = str
    default: Any = None
    kind: str = "value"
    choices: tuple[str, ...] | None = None
    const: Any = True  # a flag's value when given
    commands: tuple[str, ...] = BOTH
    metavar: str | None = None
    flag: str | None = None  # the spelling when it is not --<name> (e.g. --no-camera-obs)
    # `recallbench run`'s older shared spelling (e.g. --frames), kept working beside
    # --<benchmark>-<name>; several benchmarks' options may share one
    run_alias: str | None = None
    positive: bool = False  # a number that must be > 0 when given (checked before any work)

    def flag_name(self, prefix: str = "") -> str:
        base = (self.flag or f"--{self.name}").removeprefix("--")
        return f"--{prefix}{base}".replace("_", "-")

    def offered(self, command: str) -> bool:
        return command in self.commands


C = TypeVar("C")


def build_config(cls: Callable[..., C], options: tuple[Option, ...],
                 values: Mapping[str, Any]) -> C:
    """``cls(**values)`` with every undeclared value refused and every unset one defaulted, so a
    config never holds a value no option declares."""
    declared = {o.name: o for o in options}
    unknown = sorted(set(values) - set(declared))
    if unknown:
        raise ValueError(f"no option {unknown[0]!r} (declared: {', '.join(declared)})")
    return cls(**{name: copy.copy(values.get(name, o.default))  # never a shared default dict
                  for name, o in declared.items()})


def check_declared(cls: type, options: tuple[Option, ...]) -> None:
    """The config class's fields are exactly the declared options (run at import by each
    benchmark's options module: a field without its option cannot slip in)."""
    assert is_dataclass(cls)
    names = [f.name for f in fields(cls)]
    declared = [o.name for o in options]
    if names != declared:
        raise TypeError(f"{cls.__name__} fields {names} differ from its options {declared}")
