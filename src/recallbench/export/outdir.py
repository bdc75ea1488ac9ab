"""Where an export writes, checked before any work: ``--out`` is never the suite, inside it or
around it; it is new, empty or an export recallbench made (``export.json`` marks it); one export
writes it at a time (a lock); and what the dataset replaces was written by this export.

Shards of one export (``--shard i/N``) write their own days into one folder at once: they share
the lock, and the run without ``--shard`` (which writes the dataset) holds it alone. ``flock`` is
released by the kernel when the holder dies, so a killed export never leaves a stale lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path

from recallbench.errors import InputError, UsageError
from recallbench.export.leakage import EXPORT_FILE  # the mark: written before the first day
from recallbench.io import open_no_follow

LOCK_NAME = ".lock"


def _within(inner: Path, outer: Path) -> bool:
    return inner == outer or inner.is_relative_to(outer)


def check_out(suite: str | Path, out: str | Path, excluded: Iterable[str | Path] = ()) -> None:
    """One line naming --out (exit 2) when ``out`` would write into a suite it reads (the
    exported one or an --exclude one) or over a folder recallbench did not export into."""
    out_real = Path(out).resolve()
    for flag, other in [("SUITE", suite), *(("--exclude", e) for e in excluded)]:
        real = Path(other).resolve()
        if _within(out_real, real):
            where = "is" if out_real == real else "is inside"
            raise UsageError("--out", f"{out} {where} the suite {other} ({flag}): an export "
                             "never writes into a suite; choose a folder outside it")
        if _within(real, out_real):
            raise UsageError("--out", f"{out} contains the suite {other} ({flag}): an export "
                             "never writes around a suite; choose a folder outside it")
    if out_real.is_dir():
        names = set(os.listdir(out_real))
        mark = out_real / EXPORT_FILE
        if names - {LOCK_NAME} and (EXPORT_FILE not in names or mark.is_symlink()
                                    or not mark.is_file()):
            raise UsageError("--out", f"{out} is a folder recallbench did not export into (it "
                             f"holds other files and no {EXPORT_FILE}); choose a new or empty "
                             "folder")
    elif out_real.exists():
        raise UsageError("--out", f"{out} is an existing file, not a folder; choose another --out")


@contextlib.contextmanager
def export_lock(out: Path, shared: bool = False) -> Iterator[None]:
    """Hold ``out``'s lock (shared: a shard), or one line naming --out if another export holds
    it in a way that excludes this one."""
    out.mkdir(parents=True, exist_ok=True)
    try:
        fd = open_no_follow(out / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    except OSError as exc:  # a read-only or full file system, before any work
        raise InputError(out, None, f"cannot write the export folder: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise UsageError("--out", f"{out} is being written by another recallbench export "
                             f"(pid {holder}); wait for it to finish, then rerun to resume "
                             "(shards share a folder; the run without --shard waits for them)"
                             ) from None
        if not shared:
            os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid():<12}".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def check_replaceable(out: Path, names: Iterable[str], written: Iterable[str]) -> None:
    """Before a dataset is written: each of ``names`` under ``out`` is absent or was written by
    this export (``written``, from export.json); anything else is one line naming it."""
    ours = set(written)
    for name in names:
        path = out / name
        if (path.exists() or path.is_symlink()) and name not in ours:
            raise InputError(path, None, "was not written by this export and would be replaced "
                             "by the dataset: move it away or choose another --out")


def remove_written(path: Path) -> None:
    """Remove a file or folder the export wrote (a symlink in its place is removed, never
    followed)."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
