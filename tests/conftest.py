"""Fixtures shared across test folders. Helpers that are plain functions live in tests/support/."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.findingdory_suite import GENERATE


@pytest.fixture(scope="session")
def findingdory_generated_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny suite, generated once per session and only read by its users (the LL tests and
    the end-to-end run)."""
    from recallbench.cli import main

    out = tmp_path_factory.mktemp("fd_generated") / "suite"
    assert main([*GENERATE, "--out", str(out)]) == 0
    return out
