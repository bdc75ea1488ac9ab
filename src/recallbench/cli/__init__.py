"""The one entry point. Subcommands mirror the data flow; each registers itself from its module.

Every subcommand module exposes ``register(subparsers)``; its handler is set with
``parser.set_defaults(func=handler)`` and returns the process exit status. Modules listed here
must import cheaply (no MuJoCo or robosuite at import time) so ``recallbench --help`` is instant.
A handler raises, never prints a traceback: ``recallbench.cli.errors`` turns the exception into
one line and an exit status, printed by the one printer, ``recallbench.errors.print_problem``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from recallbench import __version__
from recallbench.cli.errors import (
    INTERRUPTED,
    STDOUT_CLOSED,
    Parser,
    handle_exception,
    print_error,
    quiet_closed_pipe,
)

# Modules that add subcommands, in the order they appear in --help, after each benchmark's own
# command (``Benchmark.command``: ``recallbench scenemem``, ``findingdory``, a plugin's). A module
# not yet present is skipped, so the CLI grows with the package.
COMMAND_MODULES = (
    "recallbench.cli.generate",
    "recallbench.cli.export",
    "recallbench.cli.world",
    "recallbench.cli.run",
    "recallbench.cli.demo",
    "recallbench.cli.merge",
    "recallbench.cli.serve_policy",
    "recallbench.cli.report",
    "recallbench.cli.view",
    "recallbench.cli.agents",
    "recallbench.cli.audit",
    "recallbench.cli.doctor",
)


class _MainParser(Parser):
    """The top-level parser: the installed distributions are scanned for plugin benchmarks'
    commands only when the first word is no built-in command (so ``--help`` and every built-in
    command read no entry points; ``recallbench <plugin>`` finds the plugin's), as ``generate``
    does for its generators' commands."""

    _commands: argparse._SubParsersAction | None = None

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        words = list(sys.argv[1:] if args is None else args)
        word = next(iter(words), "-")
        if self._commands is not None and not word.startswith("-") \
                and word not in self._commands.choices:
            add_benchmark_commands(self._commands, plugins=True)
            self._commands = None
        return super().parse_known_args(words, namespace)


def add_benchmark_commands(sub: argparse._SubParsersAction, plugins: bool) -> None:
    """``recallbench <benchmark>`` for every benchmark that declares its command: the
    built-ins' (``plugins=False``), or the plugins' (``plugins=True``)."""
    from recallbench.benchmarks.registry import BUILTIN, declared_commands
    from recallbench.loader import load_attr

    for name, ref in declared_commands(plugins=plugins).items():
        if (name not in BUILTIN) == plugins:
            load_attr(ref)(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = _MainParser(
        prog="recallbench",
        description="Evaluate memory in embodied agents (SceneMem, FindingDory, built-in world).",
    )
    parser.add_argument("--version", action="version", version=f"recallbench {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser._commands = subparsers
    add_benchmark_commands(subparsers, plugins=False)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a real import error inside the module must surface
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Its output is flushed here, inside the error printer's reach, so a
    reader that left early (``| head``) is met here and not in Python's flush at exit (which
    prints its own message and exits 120): that is a quiet exit 141, as git and ls give."""
    try:
        status = dispatch(argv)
        sys.stdout.flush()
        return status
    except SystemExit as exc:  # argparse's --help, --version and usage errors print, then exit
        if isinstance(exc.__context__, BrokenPipeError):  # rich's console exits 1 on one
            quiet_closed_pipe(exc.__context__)
            return STDOUT_CLOSED
        try:
            sys.stdout.flush()
        except BrokenPipeError as pipe:
            raise SystemExit(handle_exception(pipe, "recallbench")) from None
        raise
    except BrokenPipeError as exc:
        return handle_exception(exc, "recallbench")


def dispatch(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    prog = f"recallbench {args.command}"
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:  # what was recorded stays; say the exact command that finishes it
        print_error(f"interrupted; finish with: {resume_command(args, argv)}", prog)
        return INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - the one printer
        return handle_exception(exc, prog)


def resume_command(args: argparse.Namespace, argv: Sequence[str] | None) -> str:
    """The command line that finishes an interrupted one: a command that declares a resume flag
    (``parser.set_defaults(resume_flag=..., fresh_flag=...)``, e.g. ``findingdory``) gets it, in
    place of the flag that would discard what was just recorded (``--overwrite``); ``run``,
    ``demo`` and ``generate`` resume by running again, as they are."""
    import shlex

    words = list(sys.argv[1:] if argv is None else argv)
    resume_flag = getattr(args, "resume_flag", None)
    if resume_flag:
        words = [w for w in words if w != getattr(args, "fresh_flag", None)]
        if resume_flag not in words:
            words.append(resume_flag)
    return shlex.join(["recallbench", *words])


if __name__ == "__main__":
    sys.exit(main())
