"""Errors raised at the boundaries: every one names the file and the field at fault."""

from __future__ import annotations

import re
from pathlib import Path

# C0 and C1 control characters (ESC starts a terminal escape sequence), DEL, and the Unicode line
# and paragraph separators: a file name or a server's reply must not move the cursor, recolour
# or clear the user's terminal, or break one error into several lines.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` for one console line: whitespace runs folded to a space, every other control
    character shown escaped (``\x1b``)."""
    folded = " ".join(str(text).split())
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], folded)


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
