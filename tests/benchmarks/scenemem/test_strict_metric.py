"""recallbench's strict SceneMem metric beside the card's rule, on real rollouts in the built-in
kitchen: memoryless search passes the card's rule on the toaster oven (its second fixture) but
not the strict one, since it opened the microwave first; the privileged policy passes both."""

from __future__ import annotations

import pytest

from recallbench.agents.hierarchical import HierarchicalPrivileged
from recallbench.agents.scenemem_baselines import MemorylessSearchPolicy
from recallbench.benchmarks.scenemem.backend import load_start, make_scenario_env
from recallbench.benchmarks.scenemem.openings import strict_outcome
from recallbench.benchmarks.scenemem.rollout import run_rollout
from recallbench.benchmarks.scenemem.spec import load_scenario
from recallbench.benchmarks.scenemem.success import Thresholds
from recallbench.seeding import seed_globals
from support.kitchen import search_order_suite

pytest.importorskip("recallbench.world.env")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    data = search_order_suite(tmp_path_factory.mktemp("strict") / "data")
    scenario = load_scenario(next(data.iterdir()))
    env = make_scenario_env(scenario)
    yield scenario, env
    env.close()


def _rollout(scenario_env, policy, test_id):
    scenario, env = scenario_env
    seed_globals(0)
    load_start(env, scenario)
    test = scenario.test(test_id)
    return run_rollout(env, policy, scenario, test, test.max_steps, Thresholds())


def test_search_passes_the_card_rule_but_not_the_strict_metric(scenario):
    out = _rollout(scenario, MemorylessSearchPolicy(), "target_mug")
    assert out.memory  # the card's rule, checked every step: the second fixture it opened
    assert out.opened[:2] == ["microwave", "toaster_oven"]
    assert out.first_open_success is False
    assert out.fixtures_opened_before_success == 1


def test_search_on_its_first_fixture_passes_both(scenario):
    out = _rollout(scenario, MemorylessSearchPolicy(), "target_bowl")
    assert out.memory and out.first_open_success and out.fixtures_opened_before_success == 0


def test_privileged_opens_the_target_first(scenario):
    search = _rollout(scenario, MemorylessSearchPolicy(), "target_mug")
    out = _rollout(scenario, HierarchicalPrivileged(), "target_mug")
    assert out.memory and out.first_open_success
    assert out.opened[0] == "toaster_oven" and out.fixtures_opened_before_success == 0
    assert out.steps < search.steps  # the card's rule and its early stop are unchanged


def test_strict_outcome_rules():
    opened = [("cab_1", 10), ("cab_1", 40), ("fridge", 90), ("oven", 200)]
    assert strict_outcome(opened, "fridge", True, 90) == {
        "first_open_success": False, "fixtures_opened_before_success": 1,
        "opened": ["cab_1", "fridge", "oven"]}
    assert strict_outcome(opened, "cab_1", True, 10)["first_open_success"] is True
    failed = strict_outcome(opened, "cab_1", False, None)
    assert failed["first_open_success"] is False
    assert failed["fixtures_opened_before_success"] is None
    assert strict_outcome([], "fridge", False, None)["opened"] == []


def test_the_opening_watch_reads_every_joint_of_the_real_world_at_once():
    """Openings in order, one already open at the start counted only when reopened, either
    sign of qpos, several joints per fixture, and a fixture naming a joint the model lacks."""
    from recallbench.benchmarks.scenemem.openings import OpeningLog
    from recallbench.world.env import make_env

    env = make_env("RecallbenchKitchen", seed=0)
    try:
        env.reset()
        data = env.sim.data
        joint = {f["name"]: f["joint_names"][0] for f in env.world_meta["fixtures"][:4]}
        fridge, freezer, drawer, dishwasher = joint
        data.set_joint_qpos(joint[dishwasher], 0.9)  # open before the watch starts
        log = OpeningLog(env.sim, {fridge: [joint[fridge], joint[freezer]],
                                   drawer: [joint[drawer]], dishwasher: [joint[dishwasher]],
                                   "ghost": ["no_such_joint"]}, open_qpos=0.5)
        for step, (name, value) in enumerate(
            [(drawer, 0.49), (freezer, -0.5), (drawer, 0.5), (dishwasher, 0.9),
             (dishwasher, 0.0), (freezer, 0.0), (dishwasher, 0.6), (fridge, 0.7)], start=1):
            data.set_joint_qpos(joint[name], value)
            log.update(step)
        assert log.opened == [(fridge, 2), (drawer, 3), (dishwasher, 7), (fridge, 8)]
        assert log.fixtures["ghost"] == []
    finally:
        env.close()
