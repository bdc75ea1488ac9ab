"""One writer per run folder: an advisory lock held for as long as a run appends to its log.

Two ``--resume`` processes on one folder would both run the pending cases and record them
twice; the second is refused with one line instead. ``flock`` is released by the kernel when the
holder dies (even by SIGKILL), so a crashed run never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from recallbench.errors import InputError

LOCK_NAME = ".lock"
_HELD: set[str] = set()  # run folders this process holds


@contextlib.contextmanager
def run_folder_lock(run_dir: str | Path) -> Iterator[None]:
    """Hold the run folder's lock, or raise ``InputError`` if another process holds it.
    Re-entrant within a process (a command may hold it around steps that take it too)."""
    held = str(Path(run_dir).resolve())
    if held in _HELD:
        yield
        return
    path = Path(run_dir) / LOCK_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a read-only or full file system, found before any work
        raise InputError(path.parent, None, f"cannot write the run folder: {exc.strerror}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise InputError(
                run_dir, None, f"another recallbench process (pid {holder}) is writing this run "
                "folder; wait for it to finish or stop it, then --resume"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        _HELD.add(held)
        try:
            yield
        finally:
            _HELD.discard(held)
    finally:
        os.close(fd)  # releases the lock
