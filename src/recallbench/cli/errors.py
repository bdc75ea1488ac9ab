"""The command line's error handling: every user error is one line, never a traceback (printed,
as every error and warning is, by ``recallbench.errors.print_problem``).

Handlers raise ``UsageError`` (a flag is wrong) or ``recallbench.errors.InputError`` (a file or
field is wrong); ``recallbench.cli.main`` prints either as a single line and exits 2. Anything
else is a bug: one line too, and ``RECALLBENCH_DEBUG=1`` shows the traceback.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
from typing import Any, NoReturn

from recallbench.errors import InputError, UsageError, print_problem

USER_ERROR = 2
INTERNAL_ERROR = 1
INTERRUPTED = 130
# a reader that left early (`| head`): quiet, with the status git and ls give (128 + SIGPIPE)
STDOUT_CLOSED = 141
DEBUG_ENV = "RECALLBENCH_DEBUG"
__all__ = ["UsageError", "handle_exception", "print_error", "print_warning", "Parser"]


def print_error(message: str, prog: str = "recallbench") -> None:
    """One physical line (``errors.print_problem``): newlines in a message, e.g. from a library,
    are folded, control characters escaped."""
    print_problem(message, "error", prog=prog)


def print_warning(message: str) -> None:
    print_problem(message)


def closed_streams() -> list[int]:
    """The descriptors of stdout and stderr whose reader is gone (Linux's poll flags a pipe
    with no reader POLLERR, a socket whose peer left POLLHUP)."""
    closed = []
    for stream in (sys.__stdout__, sys.__stderr__):
        try:
            fd = stream.fileno() if stream is not None else -1
        except (OSError, ValueError):
            continue
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        if any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(0)):
            closed.append(fd)
    return closed


def quiet_closed_pipe(exc: BaseException) -> bool:
    """True when ``exc`` is a write to a stdout (or stderr) nobody reads any more: those now
    write to /dev/null, so Python's last flush at exit cannot fail too (the pattern of Python's
    signal docs). A broken pipe elsewhere (a socket) is not the user's and returns False."""
    if not isinstance(exc, BrokenPipeError):
        return False
    closed = closed_streams()
    if not closed:
        return False
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in closed:
        os.dup2(devnull, fd)
    os.close(devnull)
    return True


def handle_exception(exc: BaseException, prog: str) -> int:
    """Print ``exc`` as one line and return the exit status for it."""
    if quiet_closed_pipe(exc):
        return STDOUT_CLOSED
    if isinstance(exc, KeyboardInterrupt):
        print_error("interrupted (rerun the same command with --resume to finish)", prog)
        return INTERRUPTED
    if isinstance(exc, (UsageError, InputError)):
        print_error(str(exc), prog)
        return USER_ERROR
    if isinstance(exc, OSError) and exc.filename:
        # disk full, read-only folder, missing file: the user can act on it
        print_error(f"{exc.filename}: {exc.strerror or exc}", prog)
        return USER_ERROR
    if os.environ.get(DEBUG_ENV):
        import traceback  # only for RECALLBENCH_DEBUG=1

        traceback.print_exception(exc)
    print_error(f"internal error: {type(exc).__name__}: {exc} "
                f"(set {DEBUG_ENV}=1 for the traceback)", prog)
    return INTERNAL_ERROR


def flag_spellings(names: tuple[str, ...]) -> tuple[str, ...]:
    """Kebab-case first (what --help shows and the dest derives from), then the snake_case
    spelling as an alias, so the SceneMem card's ``--data_dir``/``--max_steps`` run verbatim."""
    out: list[str] = []
    for name in names:
        if name.startswith("--"):
            kebab = "--" + name[2:].replace("_", "-")
            snake = "--" + name[2:].replace("-", "_")
            out += [kebab, snake]
        else:
            out.append(name)
    return tuple(dict.fromkeys(out))


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line (argparse prints the usage block too), and
    every long flag is spelled kebab-case with its snake_case alias."""

    def add_argument(self, *names: str, **kwargs: Any) -> argparse.Action:
        return super().add_argument(*flag_spellings(names), **kwargs)

    def error(self, message: str) -> NoReturn:
        print_error(f"{message} (see {self.prog} --help)", self.prog)
        sys.exit(USER_ERROR)


def run_exit_status(summary: dict, where: object) -> int:
    """Print a scored run's warnings; 1 when nothing it was asked to do succeeded (no case
    recorded, or no recorded case got an answer), else 0."""
    for warning in summary.get("warnings") or []:
        print_warning(f"{where}: {warning}")
    recorded = summary.get("cases_recorded") or 0
    if recorded == 0:
        if not summary.get("scenario_errors"):  # else the runner already said why, per scenario
            print_error(f"{where}: no case was run")
        return 1
    if summary.get("no_answer", 0) >= recorded:
        # scenarios that failed their pre-flight check record their tests as failed; the runner
        # already named each one's file in an error line
        if not summary.get("scenario_errors"):
            print_error(f"{where}: every one of the {recorded} cases produced no answer (see "
                        "the warning above)")
        return 1
    return 0
