"""Small file helpers shared across the package."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def write_json_atomic(path: str | Path, data: Any, indent: int | None = 2) -> Path:
    """Write JSON through a temp file and rename, so readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=indent, sort_keys=False, default=str) + "\n")
    os.replace(tmp, path)
    return path
