"""Fixtures and hooks shared across test folders. Helpers that are plain functions live in
tests/support/."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import slow_check, xdist_groups
from support.findingdory_suite import GENERATE
from support.shared_cache import built_once


def pytest_addoption(parser: pytest.Parser) -> None:
    slow_check.add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    slow_check.register(config)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the test ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    xdist_groups.group_by_module(config, items)


@pytest.fixture(scope="session")
def findingdory_generated_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny suite, generated once per run (shared by the xdist workers) and only read by its
    users (the LL tests, the exports and the end-to-end run)."""
    from recallbench.cli import main

    def generate(out: Path) -> None:
        assert main([*GENERATE, "--out", str(out)]) == 0

    return built_once(tmp_path_factory, "fd_generated_suite", generate)
