"""A worker's spool: where its stdout and stderr go, so simulator chatter stays out of the
parent's progress display and reaches the run folder's log instead (capped per task).

The spool is an unlinked temporary file reached only through open descriptors: nothing is left
on disk on any path, also when a worker is killed (a timeout, ``ray.kill``) or the whole run is
(SIGKILL), because the kernel frees the file with its last descriptor. The descriptor is opened
read-write with O_APPEND: once emptied (truncated), writes start again at its beginning.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from pathlib import Path

from recallbench.io import open_no_follow

# Of one task's stdout/stderr, this much reaches the log; a policy printing 100 KB per step
# must not grow it by megabytes per test.
OUTPUT_CAP = 64 * 1024


def open_spool(folder: str | Path | None = None) -> int:
    """A new, already unlinked spool in ``folder`` (the log's, so a chatty worker fills the
    run's filesystem, not /tmp; None: the temp folder); returns its descriptor."""
    fd, path = tempfile.mkstemp(prefix="recallbench-worker-", suffix=".spool", dir=folder)
    os.unlink(path)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return fd


def spool_stdio(fd: int) -> None:
    """This process's stdout and stderr (descriptors 1 and 2, where C libraries write too) into
    the spool at ``fd``."""
    os.dup2(fd, 1)
    os.dup2(fd, 2)


def take_output(fd: int, label: str) -> bytes:
    """At most OUTPUT_CAP bytes of the spool at ``fd`` (its start and its end, where a
    traceback is), and the spool emptied."""
    try:
        size = os.fstat(fd).st_size
        if not size:
            return b""
        if size <= OUTPUT_CAP:
            kept = os.pread(fd, size, 0)
        else:
            half = OUTPUT_CAP // 2
            note = f"\n[{size - OUTPUT_CAP} bytes of output from {label} dropped]\n"
            kept = os.pread(fd, half, 0) + note.encode() + os.pread(fd, half, size - half)
        os.ftruncate(fd, 0)
    except OSError:
        return b""
    return kept


def append_output(log_path: str | Path | None, output: bytes) -> None:
    """Append ``output`` to the log (created if missing); nothing without a log or output."""
    if not (output and log_path):
        return
    with contextlib.suppress(OSError), os.fdopen(
            open_no_follow(Path(log_path), os.O_WRONLY | os.O_APPEND | os.O_CREAT), "ab") as log:
        log.write(output)


def move_output(fd: int, log_path: str | Path | None, label: str) -> None:
    """The spool's output (capped) appended to the log, the spool emptied."""
    append_output(log_path, take_output(fd, label))
