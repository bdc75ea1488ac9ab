"""Small file helpers shared across the package.

Everything written into a run or report folder goes through ``replace_atomic``: the folder given
as ``root`` is opened as named (the user chose it), and every folder between it and the file is
opened by directory fd with ``O_NOFOLLOW`` (made when missing), so a planted ``viewer -> /tmp``
symlink is refused instead of sending the writes outside the run folder. The file itself is a
fresh temp file created exclusively in that folder's fd (a planted ``name.tmp`` symlink is never
followed) and renamed over the final name, which may not be a symlink either.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from recallbench.errors import InputError

if TYPE_CHECKING:
    from pydantic import BaseModel

Model = TypeVar("Model", bound="BaseModel")

# A folder is opened only to be a dir_fd (O_PATH: search permission is enough, as for a path)
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY
LINK_REFUSED = ("is a symbolic link: a run folder's own files and folders must not be links "
                "(remove it)")


def _split(path: Path, root: str | Path | None) -> tuple[Path, tuple[str, ...]]:
    """(root, the folders between root and ``path``'s folder); ``root`` defaults to that folder."""
    base = path.parent if root is None else Path(root)
    try:
        parts = path.parent.relative_to(base).parts
    except ValueError:
        raise ValueError(f"{path} is not inside {base}") from None
    if ".." in parts or path.name in ("", ".", ".."):
        raise ValueError(f"{path} is not a file inside {base}")
    return base, parts


def _refuse(path: Path, dir_fd: int, name: str) -> InputError:
    """The one-line refusal of a component that could not be opened as a folder."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError as exc:
        return InputError(path, None, f"cannot open: {exc.strerror or exc}")
    if stat.S_ISLNK(mode):
        return InputError(path, None, LINK_REFUSED)
    return InputError(path, None, "is not a folder (remove it)")


def open_folder(root: str | Path, parts: Sequence[str], *, create: bool = False) -> int:
    """A directory fd of ``root/parts...``: ``root`` as named, each part under it opened with
    ``O_NOFOLLOW`` (a symlink or a file there is one ``InputError``), made when missing if
    ``create``. The caller closes the fd."""
    root = Path(root)
    if create:
        root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, _DIR_FLAGS)
    here = root
    try:
        for part in parts:
            here = here / part
            try:
                child = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):  # another writer made it meanwhile
                    os.mkdir(part, 0o777, dir_fd=fd)
                try:
                    child = os.open(part, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
                except OSError:
                    raise _refuse(here, fd, part) from None
            except OSError as exc:  # ELOOP: a symlink; ENOTDIR: a file (or a link, by kernel)
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                raise _refuse(here, fd, part) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _new_temp(dir_fd: int, name: str) -> tuple[int, str]:
    """A fresh file beside ``name``, created exclusively (never through a planted link)."""
    while True:
        tmp = f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            return os.open(tmp, flags, 0o644, dir_fd=dir_fd), tmp
        except FileExistsError:
            continue


def replace_atomic(path: str | Path, write: Callable[[BinaryIO], object], *,
                   root: str | Path | None = None) -> Path:
    """Have ``write`` fill a fresh temp file beside ``path``, then rename it over ``path``.

    ``root`` is the run or report folder the file belongs to (default: ``path``'s folder): the
    folders between it and the file, and the file's name, must not be symlinks (one
    ``InputError``, nothing written). A file system refusal is one ``InputError`` too."""
    path = Path(path)
    base, parts = _split(path, root)
    try:
        dir_fd = open_folder(base, parts, create=True)
    except OSError as exc:  # a read-only or full file system, a file named as the folder
        raise InputError(path, None, f"cannot write: {exc.strerror or exc}") from None
    try:
        _check_target(path, dir_fd)
        fd, tmp = _new_temp(dir_fd, path.name)
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
            os.replace(tmp, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
    except OSError as exc:  # disk full, read-only folder: the old file is intact
        raise InputError(path, None, f"cannot write: {exc.strerror or exc}") from None
    finally:
        os.close(dir_fd)
    return path


def _check_target(path: Path, dir_fd: int) -> None:
    try:
        mode = os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISLNK(mode):
        raise InputError(path, None, LINK_REFUSED)
    if stat.S_ISDIR(mode):
        raise InputError(path, None, "is a folder (remove it)")


def write_text_atomic(path: str | Path, text: str, *, root: str | Path | None = None) -> Path:
    """Write text so readers never see half a file and no planted symlink is followed."""
    data = text.encode("utf-8")
    return replace_atomic(path, lambda f: f.write(data), root=root)


def write_json_atomic(path: str | Path, data: Any, indent: int | None = 2, *,
                      root: str | Path | None = None) -> Path:
    """Write JSON through a temp file and rename, so readers never see half a file."""
    text = json.dumps(data, indent=indent, sort_keys=False, default=str) + "\n"
    return write_text_atomic(path, text, root=root)


def open_no_follow(path: Path, flags: int, *, root: str | Path | None = None) -> int:
    """``os.open`` of a run folder's own file that refuses a symlink planted in its place or in
    a folder between ``root`` (default: the file's folder) and it (it would make a run write
    outside its folder) and anything but a regular file."""
    path = Path(path)
    base, parts = _split(path, root)
    dir_fd = open_folder(base, parts)
    try:
        fd = os.open(path.name, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(path, None, LINK_REFUSED) from None
        raise
    finally:
        os.close(dir_fd)
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


def _field(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<root>"


def validated(model: type[Model], data: Any, path: str | Path) -> Model:
    """``data`` as a ``model`` (pydantic), or one ``InputError`` naming the file and the first
    bad field (``targets[3].area``) and how many more there are."""
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise InputError(path, _field(tuple(err["loc"])), f"{err['msg']}{more}") from exc
