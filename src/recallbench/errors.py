"""Errors raised at the boundaries: every one names the file and the field at fault."""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """Bad input on disk. Carries the file and the field so the message is actionable."""

    def __init__(self, path: str | Path, field: str | None, message: str) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {message}")


class UsageError(ValueError):
    """A command-line flag (or combination of flags) is wrong. Names the flag; any layer may
    raise it, the command line prints it as one line."""

    def __init__(self, flag: str, message: str) -> None:
        self.flag = flag
        super().__init__(f"{flag}: {message}" if flag else message)


class SuiteRefusal(InputError):
    """A suite asks for something data may not do (run code, read files outside its folder).
    The scenario is refused whole, never run and never scored as a failed test."""
