"""Folders built once per test run and shared by every pytest-xdist worker.

Each xdist worker is a session of its own, so a session fixture alone would still build a
generated suite once per worker. ``built_once`` builds it under the run's common temp folder (the
parent of the workers' own ones) behind a file lock: the first worker builds, the other waits and
reuses it. Without xdist it is an ordinary per-session folder. Users only read what it returns
(copy it first to change it).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def run_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temp folder of this whole run: shared by the xdist workers, new for every run.
    RECALLBENCH_TEST_SHARED names one instead: scripts/test.sh runs its two lanes as two pytest
    runs that build each suite once."""
    if shared := os.environ.get("RECALLBENCH_TEST_SHARED"):
        return Path(shared)
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], object]) -> Path:
    """``run_temp/shared/name``, made by ``build(path)`` (path not yet there) by the first worker
    that asks."""
    root = run_temp(tmp_path_factory) / "shared"
    root.mkdir(exist_ok=True)
    target, done = root / name, root / f"{name}.done"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            # built in place (what is built may record its own path), a failed try cleared first
            shutil.rmtree(target, ignore_errors=True)
            build(target)
            done.touch()
    return target
