"""Backend selection and the kwargs the harness passes to an env factory."""

from __future__ import annotations

import importlib.util

import pytest

from recallbench.benchmarks.scenemem import backend
from recallbench.benchmarks.scenemem.spec import load_scenario
from scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test


@pytest.fixture
def scenario(tmp_path):
    return load_scenario(mini_scenario(tmp_path / "combo_1", [mini_test("a", "bowl")]))


def test_robosuite_is_the_default_factory():
    assert backend.resolve_factory("PnPCounterToCab") is backend._robosuite_make
    assert backend.resolve_factory("Door") is backend._robosuite_make


@pytest.mark.skipif(
    importlib.util.find_spec("recallbench.world.env") is None, reason="built-in world not built"
)
def test_builtin_world_names_go_to_the_world_factory():
    from recallbench.world.env import make_env

    assert backend.resolve_factory("RecallbenchKitchen") is make_env


def test_explicit_factory_wins(scenario):
    factory = backend.resolve_factory("Door", MINI_FACTORY)
    assert factory.__name__ == "make_env" and factory.__module__ == "mini_env"
    env = backend.make_scenario_env(scenario)
    assert type(env).__name__ == "MiniKitchenEnv"


def test_env_kwargs_are_the_cards_with_cheap_rendering(scenario):
    name, kw = backend.env_kwargs(scenario)
    assert name == "MiniKitchen"
    assert kw == {
        "use_camera_obs": False,
        "has_renderer": False,
        "has_offscreen_renderer": False,
        "ignore_done": True,
    }
    # env_name inside env_kwargs wins (the card pops it from there first); cameras default on
    args = {"env_name": "Outer", "env_kwargs": {"env_name": "Inner", "robots": "PandaOmron"}}
    name, kw = backend.env_kwargs(scenario.__class__(**{**scenario.__dict__, "env_args": args}))
    assert name == "Inner" and kw["robots"] == "PandaOmron"
    assert kw["use_camera_obs"] is True and kw["has_offscreen_renderer"] is True
    assert "env_name" not in kw
