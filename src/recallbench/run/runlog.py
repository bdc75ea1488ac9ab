"""Append-only JSONL run log: one record per finished case, written through as the case ends.

Group commit: each record is flushed to the OS as its case ends, so a killed process (even
SIGKILL) loses at most the case in flight; it is fsynced at most every ``SYNC_INTERVAL`` seconds
(one fsync per record was a third of a FindingDory run) and on close. A machine crash or power
loss may cost the records of that last interval, which ``--resume`` recomputes to the same
result. A torn last line is ignored on read and cut off on the next open, so records are never
counted twice or lost.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recallbench.errors import InputError
from recallbench.io import open_no_follow

RUN_LOG = "runlog.jsonl"  # every run folder's log, whatever the benchmark
SYNC_INTERVAL = 0.2  # seconds: the most a machine crash can cost (fsyncs are at most this often)


class RunLog:
    """Durable JSONL log. Each record carries a ``key`` (the case id); a later record for the
    same key supersedes earlier ones (FindingDory's LL phase adds its outcome this way)."""

    def __init__(self, path: str | Path, sync_interval: float | None = None) -> None:
        self.path = Path(path)
        # read at each open (not bound at import), so one setting governs every run log
        self._sync_interval = SYNC_INTERVAL if sync_interval is None else sync_interval
        self._lock = threading.Lock()  # append, the deferred fsync and close share the file
        self._last_sync = -math.inf
        self._timer: threading.Timer | None = None
        self._dirty = False
        self._closed = False
        self._sync_error: OSError | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._truncate_torn_tail()
            fd = open_no_follow(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            self._file = os.fdopen(fd, "a", encoding="utf-8")
        except OSError as exc:
            raise InputError(self.path, None, f"cannot open for append: {exc.strerror}") from None

    def _truncate_torn_tail(self) -> None:
        if not self.path.exists() and not self.path.is_symlink():
            return
        with os.fdopen(open_no_follow(self.path, os.O_RDWR), "r+b") as f:
            data = f.read()
            end = data.rfind(b"\n") + 1
            if end != len(data):
                f.truncate(end)
                f.flush()
                os.fsync(f.fileno())

    def append(self, record: dict[str, Any]) -> None:
        if "key" not in record:
            raise ValueError("run log records need a 'key'")
        line = json.dumps(record, sort_keys=True, allow_nan=False, default=_json_default)
        try:
            with self._lock:
                if self._sync_error is not None:  # the deferred fsync failed: say so now
                    raise self._sync_error
                self._file.write(line + "\n")
                self._file.flush()  # in the OS now: survives the process being killed
                self._dirty = True
                self._sync_soon()
        except OSError as exc:
            # Disk full or read-only: earlier records are on disk; a torn last line is cut off
            # on the next open, so --resume redoes this case only.
            raise InputError(
                self.path,
                None,
                f"cannot append a record: {exc.strerror or exc}; the records before it are "
                "kept, free space and --resume",
            ) from None

    def _sync_soon(self) -> None:
        """fsync now if the last one is ``sync_interval`` old, else once it is (lock held)."""
        wait = self._last_sync + self._sync_interval - time.monotonic()
        if wait <= 0:
            self._sync()
        elif self._timer is None:
            self._timer = threading.Timer(wait, self._deferred_sync)
            self._timer.daemon = True
            self._timer.start()

    def _sync(self) -> None:
        os.fsync(self._file.fileno())
        self._dirty = False
        self._last_sync = time.monotonic()

    def _deferred_sync(self) -> None:
        with self._lock:
            self._timer = None
            if self._closed or not self._dirty:
                return
            try:
                self._sync()
            except OSError as exc:  # no caller to raise to here: the next append does
                self._sync_error = exc

    def close(self) -> None:
        # Every record was flushed when appended; a failure here (a full disk retrying a torn
        # write) adds nothing to lose and must not hide the error that stopped the run.
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            with contextlib.suppress(OSError):
                if self._dirty:
                    self._sync()
            with contextlib.suppress(OSError):
                self._file.close()

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _json_default(value: Any) -> Any:
    # numpy scalars and arrays reach the log from metrics; store them as plain JSON.
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield complete records; a torn final line is skipped. Later records win on equal keys."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return
    with os.fdopen(open_no_follow(path, os.O_RDONLY), "rb") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith(b"\n"):
                break
            yield _record(path, n, line)


def _record(path: Path, n: int, line: bytes) -> dict[str, Any]:
    """One line of the log as a record, or one error naming the file and line (a hand-edited or
    planted log: garbage bytes, integers past Python's 4,300 digits, nesting past the decoder's
    depth, a record that is not an object with a key)."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:120]
        raise InputError(path, f"line {n}", f"not a JSON record ({reason})") from None
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        raise InputError(path, f"line {n}", "not a run-log record (an object with a 'key')")
    return record


def completed(path: str | Path) -> dict[str, dict[str, Any]]:
    """Map each finished case key to its record (the last one written for that key)."""
    return {record["key"]: record for record in read_records(path)}
