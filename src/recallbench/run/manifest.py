"""The run manifest: everything that moves the numbers, written once at the start of a run."""

from __future__ import annotations

import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from recallbench import __version__
from recallbench.errors import InputError
from recallbench.io import read_json, write_json_atomic
from recallbench.versions import package_versions


def build_manifest(**fields: Any) -> dict[str, Any]:
    """Base manifest (versions, platform, command, time) plus the caller's run settings. The
    bootstrap seed of every score's intervals is the run seed, recorded so any re-score (by any
    command) gives identical intervals."""
    seed = fields.get("seed", (fields.get("config") or {}).get("seed", 0))
    fields.setdefault("bootstrap_seed", int(seed or 0))
    return {
        "recallbench": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "mujoco_gl": os.environ.get("MUJOCO_GL"),
        "command": sys.argv,
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **fields,
    }


def write_manifest(run_dir: str | Path, manifest: dict[str, Any]) -> Path:
    return write_json_atomic(Path(run_dir) / "manifest.json", manifest)


def read_manifest(run_dir: str | Path) -> dict[str, Any]:
    """The run's manifest; a damaged one is one ``InputError`` naming it, never a traceback."""
    path = Path(run_dir) / "manifest.json"
    manifest = read_json(path)
    if not isinstance(manifest, dict):
        raise InputError(path, None, "must be a JSON object")
    return manifest
