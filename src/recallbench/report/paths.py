"""Pages name files relative to themselves: an absolute path of this machine (a suite, a run
folder, a video, inside a warning too) becomes the path from the page's folder, so a report or
viewer moved with its run, mailed, or published says nothing about the machine it was made on."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# an absolute POSIX path standing on its own: not inside a word, a URL or a fraction ("1/2")
_ABSOLUTE = re.compile(r"(?<![\w.:/~-])/[\w.@+~-]+(?:/[\w.@+~-]*)*")
# what follows a file in an agent's spec ``path/file.py:Class``
_CLASS = re.compile(r":[A-Za-z_]\w*")


def _relative(match: re.Match[str], page: Path) -> str:
    text = match.group(0)
    if text.endswith(".py") and _CLASS.match(match.string, match.end()):
        return Path(text).name  # an agent's spec (file.py:Class) is a name, not a link
    top = text.split("/", 2)[1]
    if not os.path.isdir(f"/{top}"):  # "/100" in prose is no path of this machine
        return text
    try:
        return os.path.relpath(text, page)
    except ValueError:  # another drive: nothing relative names it
        return Path(text).name


def relative_paths(value: Any, page_dir: str | Path) -> Any:
    """``value`` (JSON-like) with every absolute path in its strings (keys too: agents key
    tables) made relative to ``page_dir``, the folder of the page that shows it; an agent's
    ``/abs/file.py:Class`` becomes ``file.py:Class``."""
    page = Path(page_dir).resolve()
    if isinstance(value, str):
        return _ABSOLUTE.sub(lambda m: _relative(m, page), value)
    if isinstance(value, Mapping):
        return {relative_paths(k, page): relative_paths(v, page) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [relative_paths(v, page) for v in value]
    return value
