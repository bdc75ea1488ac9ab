"""Flags derived from a benchmark's declared options (``benchmarks.options.Option``), one grammar
for every command (issue 24):

    recallbench <benchmark> --NAME VALUE       recallbench findingdory --scoring official
    recallbench run --<benchmark>-NAME VALUE   recallbench run --findingdory-scoring official

A flag option takes no value (``--findingdory-ll``); a ``KEY=VALUE`` option repeats
(``--findingdory-ll-policy-arg goal_radius=0.25``). ``run``'s older shared spellings
(``--frames``, ``--limit``, ``--max-steps``, ``--test-timeout``) keep working: each sets the
option of every benchmark that declares it as its alias, unless that benchmark's own flag is
given. Every long flag also answers to its snake_case spelling (``cli.errors.Parser``).

A message about an option names the flag as the user typed it (``--findingdory-frames``,
``--frames`` or ``--findingdory_frames``): each derived flag notes its spelling when given
(``typed_flags``); an option nobody typed is named by its own flag.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from recallbench.benchmarks.options import BENCHMARK_COMMAND, RUN_COMMAND, Option
from recallbench.cli.checks import check_positive, parse_key_values
from recallbench.cli.errors import UsageError, flag_spellings

TYPED = "typed_flags"  # the namespace attribute: dest -> the spelling given on the command line


def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer in ``low``..``high``, refused at parsing (one line naming
    the flag, exit 2) before any work (``--workers 0``, ``generate strip --frames 0``)."""
    def integer(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f">= {low}" if high is None else f"{low}..{high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value
    return integer


positive_int = int_in(1)  # worker counts, sizes


def _note(namespace: argparse.Namespace, dest: str, option_string: str | None) -> None:
    typed = dict(getattr(namespace, TYPED, None) or {})
    typed[dest] = option_string
    setattr(namespace, TYPED, typed)


class _Store(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        _note(namespace, self.dest, option_string)


class _Flag(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, const: Any = True,
                 default: Any = None, help: str | None = None) -> None:  # noqa: A002 - argparse's
        super().__init__(option_strings, dest, nargs=0, const=const, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, self.const)
        _note(namespace, self.dest, option_string)


class _Append(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        # a new list each time: the default one is never appended to
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])
        _note(namespace, self.dest, option_string)


def typed_flag(args: argparse.Namespace, dest: str) -> str | None:
    """The spelling ``dest``'s flag was given with, or None when it was not given."""
    return (getattr(args, TYPED, None) or {}).get(dest)


def given_flags(args: argparse.Namespace, prefix: str) -> list[str]:
    """The flags given for one benchmark's options on ``run`` (``prefix`` = the benchmark), as
    typed, in the order argparse saw them."""
    typed = getattr(args, TYPED, None) or {}
    return [flag for dest, flag in typed.items() if dest.startswith(f"{prefix}__")]


def _dest(option: Option, prefix: str) -> str:
    return f"{prefix}__{option.name}" if prefix else option.name


def _add(parser: argparse.ArgumentParser | Any, option: Option, flag: str, dest: str,
         default: Any, help_text: str) -> None:
    # both spellings here: an argument group's add_argument is not cli.errors.Parser's
    names = flag_spellings((flag,))
    if option.kind == "flag":
        parser.add_argument(*names, dest=dest, action=_Flag, const=option.const,
                            default=default, help=help_text)
    elif option.kind == "pairs":
        parser.add_argument(*names, dest=dest, action=_Append, default=[] if default is None
                            else default, metavar=option.metavar or "KEY=VALUE", help=help_text)
    else:
        metavar = option.metavar or (None if option.choices else option.name.upper())
        parser.add_argument(*names, dest=dest, action=_Store, type=option.type,
                            default=default, choices=option.choices, metavar=metavar,
                            help=help_text)


def add_benchmark_options(parser: argparse.ArgumentParser, options: Iterable[Option]) -> None:
    """``recallbench <benchmark>``: each option as ``--NAME``, with its declared default."""
    for option in options:
        if option.offered(BENCHMARK_COMMAND):
            default = [] if option.kind == "pairs" else option.default
            _add(parser, option, option.flag_name(), option.name, default, option.help)


def benchmark_values(args: argparse.Namespace, options: Iterable[Option]) -> dict[str, Any]:
    """The options' values from ``recallbench <benchmark>``'s parsed flags (checked)."""
    offered = [o for o in options if o.offered(BENCHMARK_COMMAND)]
    return _values(args, offered, "", benchmark_flag(args, offered))


def benchmark_flag(args: argparse.Namespace, options: Iterable[Option]) -> Callable[[str], str]:
    """How ``recallbench <benchmark>`` names an option in a message: as typed, else --NAME."""
    by_name = {o.name: o for o in options}

    def flag(name: str) -> str:
        option = by_name.get(name)
        own = option.flag_name() if option else "--" + name.replace("_", "-")
        return typed_flag(args, name) or own
    return flag


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


def run_flag(bench: str, options: Iterable[Option],
             args: argparse.Namespace | None = None) -> Callable[[str], str]:
    """How ``run`` names an option in a message: the flag that set it as the user typed it
    (its own, else the shared spelling), else its own --<bench>-NAME."""
    by_name = {o.name: o for o in options}
    given = args if args is not None else argparse.Namespace()

    def flag(name: str) -> str:
        option = by_name.get(name)
        own = (option.flag_name(f"{bench}-") if option else
               f"--{bench}-{name}".replace("_", "-"))
        typed = typed_flag(given, _dest(option, bench) if option else "")
        if typed is None and option is not None and option.run_alias:
            typed = typed_flag(given, _alias_dest(option.run_alias))
        return typed or own
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
    return _values(args, offered, bench, run_flag(bench, offered, args))


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


def check_options_apply(args: argparse.Namespace,
                        benchmarks: Mapping[str, Iterable[Option]], present: Collection[str],
                        where: str) -> None:
    """``run``: a benchmark's flag given when ``where`` (the suite) has no part of that
    benchmark would be ignored silently, and so would a shared spelling (``--max-steps``) whose
    benchmarks are all absent: each is a usage error naming the flag, before any work."""
    for bench in benchmarks:
        if bench not in present:
            for flag in given_flags(args, bench):
                raise UsageError(flag, f"{where} has no {bench} part, so this option would do "
                                       "nothing")
    users: dict[str, list[tuple[str, Option]]] = {}
    for bench, options in benchmarks.items():
        for option in options:
            if option.run_alias and option.offered(RUN_COMMAND):
                users.setdefault(option.run_alias, []).append((bench, option))
    for alias, sets in users.items():
        typed = typed_flag(args, _alias_dest(alias))
        if typed and not any(b in present for b, _ in sets):
            told = " and ".join(o.flag_name(f"{b}-") for b, o in sets)
            raise UsageError(typed, f"sets {told}, but {where} has no "
                                    f"{' or '.join(b for b, _ in sets)} part")


# what `recallbench run` decides with its own flags, for the options it does not take per benchmark
RUN_OWN_FLAGS = "--suite, --agents or --<benchmark>-agents, --agent-arg, --out, --seed, " \
    "--workers, --overwrite"


def not_on_run(words: Iterable[str],
               benchmarks: Iterable[tuple[str, Iterable[Option]]]) -> str | None:
    """Why an unrecognized ``run`` flag spelled --<benchmark>-NAME is not there: NAME is an option
    of ``recallbench <benchmark>`` alone (e.g. --scenemem-policy); None for any other word."""
    own: dict[str, tuple[str, Option]] = {}
    for bench, options in benchmarks:
        for option in options:
            if not option.offered(RUN_COMMAND):
                own[option.flag_name(f"{bench}-")] = (bench, option)
    for word in words:
        flag = word.partition("=")[0]
        kebab = "--" + flag.removeprefix("--").replace("_", "-")
        if flag.startswith("--") and kebab in own:
            bench, option = own[kebab]
            return (f"{flag}: {option.flag_name()} is an option of `recallbench {bench}` only; "
                    f"run decides it with its own flags ({RUN_OWN_FLAGS})")
    return None
