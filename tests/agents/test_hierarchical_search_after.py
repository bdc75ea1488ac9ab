"""The text-memory hierarchical agent searches on where its memory falls short: a probe about an
object no caption mentions (it used to idle), and a caption naming "cabinet" in a kitchen with
two (it used to stay at the wrong one). Real rollouts in the built-in kitchen at SceneMem's pace."""

from __future__ import annotations

import pytest

from recallbench.agents.hierarchical import HierarchicalSubtasks
from recallbench.benchmarks.scenemem.backend import load_start, make_scenario_env
from recallbench.benchmarks.scenemem.rollout import run_rollout
from recallbench.benchmarks.scenemem.spec import load_scenario
from recallbench.benchmarks.scenemem.success import Thresholds
from recallbench.seeding import seed_globals
from support.kitchen import kitchen_suite

world_env = pytest.importorskip("recallbench.world.env")
CAPTIONS = ["Pick the mug from the counter by the sink and place it in the cabinet."]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    data = kitchen_suite(tmp_path_factory.mktemp("search_after") / "data",
                         probes=(("bowl", "microwave"), ("mug", "cab_1")), budget=900,
                         captions=CAPTIONS, arm_step=world_env.PANDAOMRON_ARM_STEP)
    scenario = load_scenario(next(data.iterdir()))
    env = make_scenario_env(scenario)
    yield scenario, env
    env.close()


def _rollout(scenario_env, test_id):
    scenario, env = scenario_env
    seed_globals(0)
    load_start(env, scenario)
    agent = HierarchicalSubtasks()
    test = scenario.test(test_id)
    out = run_rollout(env, agent, scenario, test, test.max_steps, Thresholds())
    return out, agent


def test_no_caption_mentions_the_object_so_it_searches(scenario):
    out, agent = _rollout(scenario, "target_bowl")
    assert agent.last_choice.fixture is None  # memory has no answer
    assert out.memory and out.opened[0] == "microwave"  # the nearest fixture, as search
    assert out.policy_info["searched"][0] == "microwave"


def test_a_tied_cabinet_is_searched_first(scenario):
    out, agent = _rollout(scenario, "target_mug")
    assert agent.last_choice.fixture == "cab_2" and agent.last_choice.ties == ["cab_1"]
    assert out.memory and out.opened[:2] == ["cab_2", "cab_1"]
    assert not out.first_open_success  # the strict metric counts only memory's first choice
