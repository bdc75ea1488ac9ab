"""A benchmark's options, declared once as data (issues 24, 39).

Each benchmark's typed config (``benchmarks/<name>/options.py``) is its one declaration: every
field that is an option says so with ``option(help, ...)`` (its help, the commands offering it,
``run``'s older spelling, and the recorded setting a resumed run must match) as field metadata.
``options_of(Config)`` reads the ``Option``s off it; the command line derives its flags from them
(``recallbench <benchmark> --NAME``; ``recallbench run --<benchmark>-NAME``), the runner builds
the config from their values (``build_config``) and the resume checks read ``resume_keys``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
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
    # the recorded setting (manifest key) a resumed run must match; "" = free to differ
    resume: str = ""

    def flag_name(self, prefix: str = "") -> str:
        base = (self.flag or f"--{self.name}").removeprefix("--")
        return f"--{prefix}{base}".replace("_", "-")

    def offered(self, command: str) -> bool:
        return command in self.commands


C = TypeVar("C")

_OPTION = "recallbench.option"  # the field metadata key holding an option's declaration


def option(help: str, *, default: Any = None,  # noqa: A002 - Option's own word
           default_factory: Callable[[], Any] | None = None, resume: bool | str = False,
           **declared: Any) -> Any:
    """A config field that is an option: ``help`` and the ``Option`` keywords (``type``,
    ``kind``, ``commands``, ``run_alias``...), its default the field's. ``resume``: a resumed
    run must match it (True: recorded under the field's name; a text: under that key)."""
    meta = {_OPTION: {"help": help, "resume": resume, **declared}}
    if default_factory is not None:
        return field(default_factory=default_factory, metadata=meta)
    return field(default=default, metadata=meta)


def options_of(cls: type) -> tuple[Option, ...]:
    """The options a config class declares, in field order (its other fields are recorded
    settings no flag sets)."""
    assert is_dataclass(cls)
    out = []
    for f in fields(cls):
        declared = dict(f.metadata.get(_OPTION) or {})
        if not declared:
            continue
        resume = declared.pop("resume")
        default = f.default_factory() if f.default_factory is not MISSING else f.default
        out.append(Option(f.name, default=default, resume=f.name if resume is True
                          else (resume or ""), **declared))
    return tuple(out)


def resume_keys(options: tuple[Option, ...]) -> tuple[str, ...]:
    """The recorded settings a resumed run must match, each once, in declaration order."""
    return tuple(dict.fromkeys(o.resume for o in options if o.resume))


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
