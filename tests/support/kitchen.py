"""The built-in kitchen (seed 0) as a SceneMem scenario with two probes, the bowl in the microwave
(the fixture nearest the robot) and the mug in the fridge (the farthest along the run), subtask
captions, and rollouts of a policy over its tests as the harness's workers run them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recallbench.benchmarks.scenemem.backend import load_start
from recallbench.benchmarks.scenemem.rollout import run_rollout
from recallbench.benchmarks.scenemem.success import Thresholds
from recallbench.seeding import seed_globals
from support.scenemem_fixtures.build import write_scenario

world_env = pytest.importorskip("recallbench.world.env")

BUDGET = 300
PROBES = (("bowl", "microwave"), ("mug", "fridge"))
CAPTIONS = [
    "Pick the mug from the counter and place it in the fridge.",
    "Pick the bowl from the fridge and place it in the microwave.",
    "Open the oven door and close it again.",
]


def kitchen_suite(data: Path, name: str = "combo_0900_L0_S0_0", *,
                  probes: tuple[tuple[str, str], ...] = PROBES, budget: int = BUDGET,
                  captions: list[str] | None = None, arm_step: float | None = None) -> Path:
    """A real scenario folder of the built-in kitchen with the probes (category, fixture) and
    subtask captions (default: the two probes above and CAPTIONS). ``arm_step``: the arm's pace
    (generated SceneMem scenarios run at ``world.env.PANDAOMRON_ARM_STEP``)."""
    kwargs = {"seed": 0, **({"arm_step": arm_step} if arm_step is not None else {})}
    env = world_env.make_env("RecallbenchKitchen", **kwargs)
    env.reset()
    fixtures = {f["name"]: f for f in env.world_meta["fixtures"]}
    keep = ("name", "type", "body_name", "joint_names")
    tests = [
        {"test_id": f"target_{cat}", "object": f"obj_{cat}_1", "category": cat,
         "fixture": {k: fixtures[fx][k] for k in keep}, "max_steps": budget}
        for cat, fx in probes
    ]
    root = write_scenario(
        data / name, tests, env.xml, env.sim.get_state().flatten(),
        {"env_name": "RecallbenchKitchen", "env_kwargs": kwargs}, env.get_ep_meta(),
    )
    tasks = [{"index": i, "instruction": c}
             for i, c in enumerate(CAPTIONS if captions is None else captions)]
    (root / "videos" / "subtasks.json").write_text(json.dumps({"fps": 20, "tasks": tasks}))
    env.close()
    return data


# memoryless search's first and second fixture from the kitchen's start (nearest first)
SEARCH_FIRST_SECOND = (("bowl", "microwave"), ("mug", "toaster_oven"))


def search_order_suite(data: Path) -> Path:
    """The kitchen with probes on search's first and second fixture, 600 steps each, no
    captions, the arm at the pace generated SceneMem scenarios run at."""
    return kitchen_suite(data, probes=SEARCH_FIRST_SECOND, budget=600, captions=[],
                         arm_step=world_env.PANDAOMRON_ARM_STEP)


def rollouts(scenario_env, policy) -> dict[str, object]:
    """Each test from its start state, seeded per test as the harness's workers do."""
    scenario, env = scenario_env
    out = {}
    for k, test in enumerate(scenario.spec.tests):
        seed_globals(k)
        load_start(env, scenario)
        out[test.test_id] = run_rollout(env, policy, scenario, test, test.max_steps,
                                        Thresholds())
    return out


def rate(outcomes: dict) -> float:
    """The share of tests solved from memory."""
    return sum(o.memory for o in outcomes.values()) / len(outcomes)
