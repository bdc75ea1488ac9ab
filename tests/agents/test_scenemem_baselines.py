"""SceneMem acting baselines end to end in the built-in world, through the harness's own rollout.

The suite: the built-in kitchen (seed 0) with two probes, the bowl in the microwave (the fixture
nearest the robot) and the mug in the fridge (the farthest along the run), and a step budget of
300 per test: enough to drive straight to either fixture and open it, not enough to search
everything on the way to the fridge. So the privileged policy must score 2/2, do-nothing 0/2 and
memoryless search exactly 1/2 (it finds the microwave, runs out of steps before the fridge).
"""

from __future__ import annotations

import numpy as np
import pytest

from recallbench.agents.fixture_controller import nearest_fixture
from recallbench.agents.hierarchical import HierarchicalPrivileged, HierarchicalRandom
from recallbench.agents.scenemem_baselines import MemorylessSearchPolicy, RandomActionPolicy
from recallbench.benchmarks.scenemem.backend import load_start
from recallbench.benchmarks.scenemem.rollout import run_rollout
from recallbench.benchmarks.scenemem.success import Thresholds
from support.kitchen import BUDGET, rate, rollouts


def test_privileged_reaches_every_probe_through_actions(scenario):
    outcomes = rollouts(scenario, HierarchicalPrivileged())
    assert all(o.error is None for o in outcomes.values())
    assert rate(outcomes) == 1.0
    # it drove there: the base was far from both fixtures at the start
    assert all(o.steps > 30 for o in outcomes.values())


def test_do_nothing_scores_zero(scenario):
    from recallbench.agents.scenemem_baselines import DoNothingPolicy

    outcomes = rollouts(scenario, DoNothingPolicy())
    assert rate(outcomes) == 0.0
    assert all(o.steps == BUDGET and o.error is None for o in outcomes.values())


@pytest.mark.slow
def test_memoryless_search_finds_the_near_fixture_only(scenario):
    policy = MemorylessSearchPolicy()
    outcomes = rollouts(scenario, policy)
    print("memoryless search:", {k: (o.memory, o.steps) for k, o in outcomes.items()})
    assert outcomes["target_bowl"].memory and not outcomes["target_mug"].memory
    assert rate(outcomes) == 0.5
    # it searched: several fixtures opened in the fridge rollout, the fridge not reached
    assert len(policy.visited) >= 3 and "fridge" not in policy.visited[:-1]
    assert outcomes["target_mug"].steps == BUDGET
    # with a budget for everything it finds the fridge too (slower than the privileged policy)
    scenario_, env = scenario
    load_start(env, scenario_)
    slow = run_rollout(env, MemorylessSearchPolicy(), scenario_, scenario_.test("target_mug"),
                       1500, Thresholds())
    assert slow.memory and slow.steps > BUDGET


def test_search_order_is_nearest_first(scenario):
    scenario_, env = scenario
    load_start(env, scenario_)
    fixtures = [f for f in env.world_meta["fixtures"] if f["doors"]]
    first = nearest_fixture(env, fixtures)
    here = env.base_pose()[:2]
    d = {f["name"]: env.nav_grid.geodesic(here, env.nav_grid.snap(f["approach_pose"][:2]))
         for f in fixtures}
    assert first is not None and d[first["name"]] == min(d.values())
    assert nearest_fixture(env, []) is None


@pytest.mark.slow
def test_random_fixture_choice_is_seeded_and_reported(scenario):
    a, b = HierarchicalRandom(), HierarchicalRandom()
    rollouts(scenario, a)
    rollouts(scenario, b)
    assert a.last_choice is not None and b.last_choice is not None
    assert a.last_choice.fixture == b.last_choice.fixture  # same per-test seeds, same choice
    names = {f["name"] for f in scenario[1].world_meta["fixtures"] if f["doors"]}
    assert a.last_choice.fixture in names


def test_random_actions_run_and_stay_in_range(scenario):
    policy = RandomActionPolicy()
    np.random.seed(0)
    a = policy.get_action(scenario[1])
    assert a.shape == (12,) and np.all(np.abs(a) <= 1.0) and np.std(a) > 0
    outcomes = rollouts(scenario, policy)
    print("random actions:", {k: o.memory for k, o in outcomes.items()})
    assert all(o.error is None and o.steps > 0 for o in outcomes.values())
