"""Small file helpers shared across the package.

Everything written into a run or report folder goes through a temp file made by ``mkstemp`` in
the same folder (created exclusively, so a planted ``name.tmp`` symlink is never followed) and
``os.replace`` (which replaces a planted symlink at the final name instead of writing through it).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recallbench.errors import InputError


def replace_atomic(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Have ``write`` fill a fresh temp file beside ``path``, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write text so readers never see half a file and no planted symlink is followed."""
    return replace_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_json_atomic(path: str | Path, data: Any, indent: int | None = 2) -> Path:
    """Write JSON through a temp file and rename, so readers never see half a file."""
    path = Path(path)
    text = json.dumps(data, indent=indent, sort_keys=False, default=str) + "\n"
    try:
        return write_text_atomic(path, text)
    except OSError as exc:  # disk full, read-only folder: one line; the old file is intact
        raise InputError(path, None, f"cannot write: {exc.strerror or exc}") from None


def open_no_follow(path: Path, flags: int) -> int:
    """``os.open`` of a run folder's own file that refuses a symlink planted in its place (it
    would make a run write outside its folder) and anything but a regular file."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(path, None, "is a symbolic link: a run folder's own files must "
                                         "be regular files (remove it)") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(path, None, "is not a regular file (remove it)")
    return fd


def parse_json(text: str | bytes, path: str | Path, field: str | None = None) -> Any:
    """JSON from untrusted text, or one ``InputError`` naming the file (and line): not UTF-8,
    malformed, nested past the decoder's depth, or an integer past Python's 4,300 digits."""
    try:  # bytes are UTF-8 (json.loads would guess UTF-16 from a stray byte order mark)
        return json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
    except UnicodeDecodeError as exc:
        raise InputError(path, field, f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        where = field or f"line {exc.lineno}"
        raise InputError(path, where, f"malformed JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(path, field, "JSON nested too deeply") from None
    except ValueError as exc:  # an integer of 4,300+ digits
        raise InputError(path, field, f"unreadable JSON: {str(exc).split(';')[0]}") from None


def read_bytes_regular(path: str | Path) -> bytes:
    """A suite file's bytes: one ``InputError`` if it is missing, not a regular file (a folder,
    a FIFO that would block) or unreadable."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        raise InputError(path, None, "file is missing") from None
    if not stat.S_ISREG(mode):
        raise InputError(path, None, "is not a regular file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None


def read_json(path: str | Path) -> Any:
    """A suite's JSON file, every failure one ``InputError`` naming it."""
    return parse_json(read_bytes_regular(path), path)
