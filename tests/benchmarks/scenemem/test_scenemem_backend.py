"""Backend selection and the kwargs the harness passes to an env factory."""

from __future__ import annotations

import importlib.util

import pytest

from recallbench.benchmarks.scenemem import backend
from recallbench.benchmarks.scenemem.spec import load_scenario
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test


@pytest.fixture
def scenario(tmp_path):
    root = mini_scenario(tmp_path / "combo_1", [mini_test("a", "bowl")])
    return load_scenario(root, MINI_FACTORY)


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
    assert factory.__name__ == "make_env" and "mini_env" in factory.__module__
    env = backend.make_scenario_env(scenario)
    assert type(env).__name__ == "MiniKitchenEnv"


def test_env_kwargs_are_the_cards_with_cheap_rendering(scenario):
    def with_args(args):
        return scenario.__class__(**{**scenario.__dict__, "env_args": args, "env_factory": None})

    # an explicit factory gets env_kwargs unchanged
    name, kw, is_robosuite = backend.env_kwargs(scenario)
    assert (name, kw, is_robosuite) == ("MiniKitchen", {"use_camera_obs": False}, False)
    # robosuite: env_name inside env_kwargs wins (the card pops it there first); cameras and the
    # offscreen renderer on as the card sets them, whatever env_args say; no horizon stop
    args = {"env_name": "Outer", "env_kwargs": {"env_name": "Inner", "robots": "PandaOmron"}}
    name, kw, is_robosuite = backend.env_kwargs(with_args(args))
    assert name == "Inner" and is_robosuite
    assert kw == {
        "robots": "PandaOmron",
        "use_camera_obs": True,
        "has_renderer": False,
        "has_offscreen_renderer": True,
        "ignore_done": True,
    }
    args = {"env_name": "Door", "env_kwargs": {"use_camera_obs": False}}
    kw = backend.env_kwargs(with_args(args))[1]
    assert kw["use_camera_obs"] is True and kw["has_offscreen_renderer"] is True
    args = {"env_name": "Door", "env_kwargs": {"has_offscreen_renderer": True}}
    kw = backend.env_kwargs(with_args(args), cameras=False)[1]  # --no_camera_obs
    assert kw["use_camera_obs"] is False and kw["has_offscreen_renderer"] is False
    # the built-in world takes its own kwargs, untouched
    args = {"env_name": "RecallbenchKitchen", "env_kwargs": {"seed": 3}}
    assert backend.env_kwargs(with_args(args)) == ("RecallbenchKitchen", {"seed": 3}, False)
