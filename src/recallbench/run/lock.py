"""One writer per run folder: an advisory lock held for as long as a run appends to its log.

Two ``--resume`` processes on one folder would both run the pending cases and record them
twice; the second is refused with one line instead. ``flock`` is released by the kernel when the
holder dies (even by SIGKILL), so a crashed run never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from recallbench.errors import InputError
from recallbench.io import open_no_follow

LOCK_NAME = ".lock"
_HELD: set[str] = set()  # run folders this process holds


@contextlib.contextmanager
def run_folder_lock(run_dir: str | Path, then: str = "--resume") -> Iterator[None]:
    """Hold the run folder's lock, or raise ``InputError`` if another process holds it (the
    message ends with ``then``: how the caller's command finishes the run). Re-entrant within a
    process (a command may hold it around steps that take it too). A lock file a dead process
    left is stale: the kernel released its ``flock``, so it is simply taken again."""
    held = str(Path(run_dir).resolve())
    if held in _HELD:
        yield
        return
    path = Path(run_dir) / LOCK_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_no_follow(path, os.O_RDWR | os.O_CREAT)
    except OSError as exc:  # a read-only or full file system, found before any work
        raise InputError(path.parent, None, f"cannot write the run folder: {exc.strerror}") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise InputError(
                run_dir, None, f"another recallbench process (pid {holder}) is writing this run "
                f"folder; wait for it to finish or stop it, then {then}"
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


def clear_run_folder(run_dir: str | Path) -> None:
    """Empty a run folder for ``--overwrite``: only while holding its lock (a running writer's
    folder is refused, not deleted under it), and never the lock file itself, so a writer that
    starts meanwhile waits on the same inode. Symlinks inside are removed, never followed."""
    run_dir = Path(run_dir)
    if run_dir.is_symlink() or not run_dir.is_dir():
        if run_dir.is_symlink() or run_dir.exists():
            raise InputError(run_dir, None, "is not a run folder (a symlink or a file)")
        return
    with run_folder_lock(run_dir):
        for entry in os.scandir(run_dir):
            if entry.name == LOCK_NAME:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
