"""Fixtures and hooks shared across test folders. Helpers that are plain functions live in
tests/support/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support import slow_check, xdist_groups
from support.findingdory_suite import GENERATE
from support.shared_cache import built_once


def pytest_addoption(parser: pytest.Parser) -> None:
    slow_check.add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    slow_check.register(config)


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: one module per worker
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    return xdist_groups.make_scheduler(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    xdist_groups.longest_first(config, items)


def _generated_findingdory(tmp_path_factory: pytest.TempPathFactory, name: str,
                           episodes: int) -> Path:
    """The tiny suite (``support.findingdory_suite.GENERATE``) with ``episodes`` days, generated
    once per run (shared by the xdist workers and both lanes) and only read by its users."""
    from recallbench.cli import main

    n = GENERATE.index("--n") + 1
    args = [*GENERATE[:n], str(episodes), *GENERATE[n + 1:]]

    def generate(out: Path) -> None:
        assert main([*args, "--out", str(out)]) == 0

    return built_once(tmp_path_factory, name, generate)


@pytest.fixture(scope="session")
def findingdory_generated_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One day (the LL tests, the exports and the end-to-end run)."""
    return _generated_findingdory(tmp_path_factory, "fd_generated_suite", 1)


@pytest.fixture(scope="session")
def findingdory_ends_at_a_goal_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny suite at a seed whose day ends where single-target goals are met (16 questions
    at seed 4, none at 7 since days end facing furniture): the LL tests cover stopping at a
    start that satisfies its goal."""
    from recallbench.cli import main

    seed = GENERATE.index("--seed") + 1
    args = [*GENERATE[:seed], "4", *GENERATE[seed + 1:]]

    def generate(out: Path) -> None:
        assert main([*args, "--out", str(out)]) == 0

    return built_once(tmp_path_factory, "fd_ends_at_a_goal_suite", generate)


@pytest.fixture(scope="session")
def findingdory_two_day_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two days, for the tests that shard by episode."""
    return _generated_findingdory(tmp_path_factory, "fd_two_day_suite", 2)
