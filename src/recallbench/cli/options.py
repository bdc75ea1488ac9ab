"""Flags derived from a benchmark's declared options (``benchmarks.options.Option``), one grammar
for every command (issue 24):

    recallbench <benchmark> --NAME VALUE       recallbench findingdory --scoring official
    recallbench run --<benchmark>-NAME VALUE   recallbench run --findingdory-scoring official

A flag option takes no value (``--findingdory-ll``); a ``KEY=VALUE`` option repeats
(``--findingdory-ll-policy-arg goal_radius=0.25``). ``run``'s older shared spellings
(``--frames``, ``--limit``, ``--max-steps``, ``--test-timeout``) keep working: each sets the
option of every benchmark that declares it as its alias, unless that benchmark's own flag is
given. Every long flag also answers to its snake_case spelling (``cli.errors.Parser``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

from recallbench.benchmarks.options import BENCHMARK_COMMAND, RUN_COMMAND, Option
from recallbench.cli.checks import check_positive, parse_key_values


def _dest(option: Option, prefix: str) -> str:
    return f"{prefix}__{option.name}" if prefix else option.name


def _add(parser: argparse.ArgumentParser | Any, option: Option, flag: str, dest: str,
         default: Any, help_text: str) -> None:
    if option.kind == "flag":
        parser.add_argument(flag, dest=dest, action="store_const", const=option.const,
                            default=default, help=help_text)
    elif option.kind == "pairs":
        parser.add_argument(flag, dest=dest, action="append", default=[] if default is None
                            else default, metavar=option.metavar or "KEY=VALUE", help=help_text)
    else:
        metavar = option.metavar or (None if option.choices else option.name.upper())
        parser.add_argument(flag, dest=dest, type=option.type, default=default,
                            choices=option.choices, metavar=metavar, help=help_text)


def add_benchmark_options(parser: argparse.ArgumentParser, options: Iterable[Option]) -> None:
    """``recallbench <benchmark>``: each option as ``--NAME``, with its declared default."""
    for option in options:
        if option.offered(BENCHMARK_COMMAND):
            default = [] if option.kind == "pairs" else option.default
            _add(parser, option, option.flag_name(), option.name, default, option.help)


def benchmark_values(args: argparse.Namespace, options: Iterable[Option]) -> dict[str, Any]:
    """The options' values from ``recallbench <benchmark>``'s parsed flags (checked)."""
    offered = [o for o in options if o.offered(BENCHMARK_COMMAND)]
    by_name = {o.name: o for o in offered}
    return _values(args, offered, "", lambda name: by_name[name].flag_name())


def add_run_options(parser: argparse.ArgumentParser | Any,
                    benchmarks: Iterable[tuple[str, Iterable[Option]]]) -> None:
    """``recallbench run``: each benchmark's run options as ``--<benchmark>-NAME``, plus the
    older shared spellings (``run_alias``) once each."""
    aliases: dict[str, list[tuple[str, Option]]] = {}
    for bench, options in benchmarks:
        group = parser.add_argument_group(f"{bench} options")
        for option in options:
            if not option.offered(RUN_COMMAND):
                continue
            _add(group, option, option.flag_name(f"{bench}-"), _dest(option, bench), None,
                 option.help)
            if option.run_alias:
                aliases.setdefault(option.run_alias, []).append((bench, option))
    for alias, users in aliases.items():
        first = users[0][1]
        told = ", ".join(o.flag_name(f"{b}-") for b, o in users)
        _add(parser, first, alias, _alias_dest(alias), None,
             f"shared spelling: sets {told} unless given")


def _alias_dest(alias: str) -> str:
    return "alias__" + alias.removeprefix("--").replace("-", "_")


def run_flag(bench: str, options: Iterable[Option]) -> Callable[[str], str]:
    """How ``run`` names an option in a message: its shared spelling, else --<bench>-NAME."""
    by_name = {o.name: o for o in options}

    def flag(name: str) -> str:
        option = by_name.get(name)
        if option is None:
            return f"--{bench}-{name}".replace("_", "-")
        return option.run_alias or option.flag_name(f"{bench}-")
    return flag


def run_values(args: argparse.Namespace, bench: str, options: Iterable[Option]) -> dict[str, Any]:
    """One benchmark's option values from ``recallbench run``'s flags: its own flag, else the
    shared spelling, else the declared default (checked)."""
    offered = [o for o in options if o.offered(RUN_COMMAND)]
    for option in offered:  # unset: the shared spelling, then the default
        dest = _dest(option, bench)
        value = getattr(args, dest, None)
        if value is None and option.run_alias:
            value = getattr(args, _alias_dest(option.run_alias), None)
        if value is None or (option.kind == "pairs" and not value):
            value = [] if option.kind == "pairs" else option.default
        setattr(args, dest, value)
    return _values(args, offered, bench, run_flag(bench, offered))


def _values(args: argparse.Namespace, options: list[Option], prefix: str,
            flag: Callable[[str], str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for option in options:
        name = flag(option.name)
        value = getattr(args, _dest(option, prefix))
        if option.kind == "pairs":
            value = parse_key_values(name, value or [])
        if option.positive:
            check_positive(name, value)
        values[option.name] = value
    return values
