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


def kitchen_suite(data: Path, name: str = "combo_0900_L0_S0_0") -> Path:
    """A real scenario folder of the built-in kitchen with the two probes and subtask captions."""
    env = world_env.make_env("RecallbenchKitchen", seed=0)
    env.reset()
    fixtures = {f["name"]: f for f in env.world_meta["fixtures"]}
    keep = ("name", "type", "body_name", "joint_names")
    tests = [
        {"test_id": f"target_{cat}", "object": f"obj_{cat}_1", "category": cat,
         "fixture": {k: fixtures[fx][k] for k in keep}, "max_steps": BUDGET}
        for cat, fx in PROBES
    ]
    root = write_scenario(
        data / name, tests, env.xml, env.sim.get_state().flatten(),
        {"env_name": "RecallbenchKitchen", "env_kwargs": {"seed": 0}}, env.get_ep_meta(),
    )
    tasks = [{"index": i, "instruction": c} for i, c in enumerate(CAPTIONS)]
    (root / "videos" / "subtasks.json").write_text(json.dumps({"fps": 20, "tasks": tasks}))
    env.close()
    return data


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
