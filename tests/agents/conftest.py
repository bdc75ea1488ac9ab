"""The agents' tests share the built-in kitchen scenario (support.kitchen), one per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from recallbench.benchmarks.scenemem.backend import make_scenario_env
from recallbench.benchmarks.scenemem.spec import load_scenario
from support.kitchen import kitchen_suite


@pytest.fixture(scope="module")
def kitchen_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A suite folder holding the kitchen scenario."""
    return kitchen_suite(tmp_path_factory.mktemp("kitchen") / "data")


@pytest.fixture(scope="module")
def scenario(kitchen_data: Path):
    """The kitchen scenario and its env, loaded once per module (rollouts reset it per test)."""
    scenario = load_scenario(next(kitchen_data.iterdir()))
    env = make_scenario_env(scenario)
    yield scenario, env
    env.close()
