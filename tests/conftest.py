"""Fixtures shared across test folders. Helpers that are plain functions live in tests/support/."""

from __future__ import annotations

from pathlib import Path

import pytest

# A tiny FindingDory suite: one one-room day with two interactions, recorded by the real generator.
GENERATE = [
    "generate", "findingdory", "--n", "1", "--seed", "7", "--workers", "1",
    "--interactions", "2", "--steps", "600", "--rooms", "1", "--width", "120",
    "--height", "160", "--distractors", "4", "--revisits", "1",
]  # fmt: skip


@pytest.fixture(scope="session")
def findingdory_generated_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny suite, generated once per session and only read by its users (the LL tests and
    the end-to-end run)."""
    from recallbench.cli import main

    out = tmp_path_factory.mktemp("fd_generated") / "suite"
    assert main([*GENERATE, "--out", str(out)]) == 0
    return out
