"""Errors raised at the boundaries: every one names the file and the field at fault; and the one
printer of errors and warnings (``print_problem``), which every layer uses."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Literal

# C0 and C1 control characters (ESC starts a terminal escape sequence), DEL, and the Unicode line
# and paragraph separators: a file name or a server's reply must not move the cursor, recolour
# or clear the user's terminal, or break one error into several lines.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` for one console line: whitespace runs folded to a space, every other control
    character shown escaped (``\x1b``)."""
    folded = " ".join(str(text).split())
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], folded)


def print_problem(message: str, kind: Literal["error", "warning"] = "warning", *,
                  console: Any = None, prog: str = "recallbench") -> None:
    """Print an error or a warning as one line: the one printer every command and layer uses.

    Without ``console``: ``recallbench: warning: ...`` on stderr (what ``2>`` and scripts read).
    With a rich ``console`` (a command's, or a run's writing to its console.log): the same
    message after a coloured ``error`` / ``warning:``, markup in it kept literal, never wrapped.
    """
    line = printable(message)
    if console is None:
        print(f"{prog}: {kind}: {line}", file=sys.stderr, flush=True)
        return
    from rich.markup import escape  # rich only where a console is given

    head = "[red]error[/red]" if kind == "error" else "[yellow]warning[/yellow]:"
    console.print(f"{head} {escape(line)}", highlight=False, soft_wrap=True)


_CLOSERS = {"[": "]", "(": ")", "{": "}"}


def _lists(text: str) -> list[tuple[int, int, list[int]]]:
    """Every bracketed list of ``text``: (where it opens, where it closes or -1, where its own
    ", " separators are), quoted strings skipped (a comma inside one separates nothing)."""
    stack: list[tuple[int, int, list[int]]] = []
    found: list[tuple[int, int, list[int]]] = []
    quote, i = "", 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"" and (i == 0 or not text[i - 1].isalnum()):  # not an apostrophe
            quote = c
        elif c in _CLOSERS:
            stack.append((i, -1, []))
        elif stack and c == _CLOSERS[text[stack[-1][0]]]:
            start, _, seps = stack.pop()
            found.append((start, i, seps))
        elif stack and c == "," and text[i + 1:i + 2] == " ":
            stack[-1][2].append(i)
        i += 1
    return found + stack


def shorten(text: str, limit: int) -> str:
    """``text`` in about ``limit`` characters, cut between whole items, never inside one: a list
    cut short ends ", ... and N more" (then its closing bracket and what follows, as room
    allows); other text ends at a whole word with "... (N more characters)"."""
    if len(text) <= limit:
        return text
    room = max(limit - 24, 8)  # what the note and a closing bracket take
    straddling = [(start, end, seps) for start, end, seps in _lists(text)
                  if start < room and (end < 0 or end >= room) and any(s < room for s in seps)]
    if straddling:
        start, end, seps = max(straddling)  # the innermost list the cut falls in
        cut = max(s for s in seps if s < room)
        left = sum(1 for s in seps if s > cut) + 1
        head = f"{text[:cut]}, ... and {left} more{text[end] if end >= 0 else ''}"
        rest = text[end + 1:] if end >= 0 else ""
        return head + (rest if len(head) + len(rest) <= limit
                       else shorten(rest, max(limit - len(head), 32)) if rest.strip() else "")
    cut = text.rfind(" ", 0, room)
    cut = cut if cut > 0 else room
    return f"{text[:cut]} ... ({len(text) - cut} more characters)"


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
