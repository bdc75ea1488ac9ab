"""On-disk response cache for model calls: a rerun of the same request costs no request.

Entries are JSON files named by a sha256 key, fanned out over 256 subdirectories so a large run
does not put 100k files in one directory. Writes go through a unique temp file and ``os.replace``,
so concurrent writers (threads or processes) and crashes never leave a half-written entry; an
unreadable entry is treated as a miss and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def stable_hash(material: Any) -> str:
    """sha256 of canonical JSON (sorted keys, no whitespace): equal content, equal key."""
    text = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Maps a hex key to a JSON-serialisable dict, one file per key under ``root``."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            value = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # missing or torn (e.g. disk full mid-write elsewhere): a miss
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> Path:
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{key[:8]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(value, handle, ensure_ascii=False)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("??/*.json")) if self.root.is_dir() else 0
