"""Checks on the paths a command will write, run before any work: nothing a user names is ever
overwritten unless recallbench made it.

A folder is recallbench's when it is empty or holds one of the files a command writes there
(``MARKS``); a file is refused when it exists, unless the caller knows it made it (a SceneMem
``results.json`` named by its own run folder's manifest) and ``--overwrite`` was given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from recallbench.cli.errors import UsageError

# What recallbench leaves in a folder it made: run folders, comparisons, suites, viewers, audits.
MARKS = ("manifest.json", "runlog.jsonl", ".lock", "comparison.json", "report.html",
         "suite.json", "index.html", "audit.json", "summary.json", ".complete")


def is_ours(folder: Path, marks: Iterable[str] = MARKS) -> bool:
    """An empty folder, or one holding a file recallbench writes there (or a folder that does:
    a comparison's agent folders, a demo's suites/ and comparison/)."""
    entries = list(folder.iterdir())
    if not entries:
        return True
    marks = tuple(marks)
    if any((folder / m).exists() for m in marks):
        return True
    return any(e.is_dir() and any((e / m).exists() for m in marks) for e in entries)


def check_output_folder(flag: str, path: str | Path, marks: Iterable[str] = MARKS,
                        made_by: Callable[[Path], bool] | None = None) -> None:
    """``path`` does not exist yet, or is a folder recallbench made (``made_by``: the command
    also knows its own layout, e.g. what an interrupted ``run`` left); else one line naming
    ``flag`` (exit 2), before any work."""
    path = Path(path)
    if path.is_dir():
        if not is_ours(path, marks) and not (made_by is not None and made_by(path)):
            raise UsageError(flag, f"{path} is a folder recallbench did not make (it holds "
                                   f"other files); choose a new or empty folder")
    elif path.exists() or path.is_symlink():
        raise UsageError(flag, f"{path} is an existing file, not a folder; choose another {flag}")


def check_output_file(flag: str, path: str | Path, *, replace: bool = False,
                      hint: str = "") -> None:
    """``path`` does not exist yet (or ``replace``: the caller made it and may replace it); a
    folder or an existing file is one line naming ``flag`` (exit 2), before any work."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(flag, f"{path} is a folder; name a file")
    if (path.exists() or path.is_symlink()) and not replace:
        raise UsageError(flag, f"{path} already exists and is not replaced{hint}; "
                               f"choose another {flag}")


def is_summary_file(path: Path) -> bool:
    """A summary JSON recallbench wrote (an object with ``overall``): a rerun may replace it."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "overall" in data
