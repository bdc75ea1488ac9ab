"""Small file helpers shared across the package."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from recallbench.errors import InputError


def write_json_atomic(path: str | Path, data: Any, indent: int | None = 2) -> Path:
    """Write JSON through a temp file and rename, so readers never see half a file."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    text = json.dumps(data, indent=indent, sort_keys=False, default=str) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text)
        os.replace(tmp, path)
    except OSError as exc:  # disk full, read-only folder: one line; the old file is intact
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise InputError(path, None, f"cannot write: {exc.strerror or exc}") from None
    return path
