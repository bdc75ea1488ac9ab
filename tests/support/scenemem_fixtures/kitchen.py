"""A real scenario folder of the built-in kitchen (seed 0) with chosen probes, for tests of the
strict metric and the audit, at the pace generated SceneMem scenarios run at (PandaOmron's arm
step). From the kitchen's start pose, memoryless search opens the microwave first and the
toaster oven second (nearest first)."""

from __future__ import annotations

import json
from pathlib import Path

from support.scenemem_fixtures.build import write_scenario

# (category, fixture): the microwave is search's first fixture, the toaster oven its second
SEARCH_FIRST_AND_SECOND = (("bowl", "microwave"), ("mug", "toaster_oven"))


def kitchen_suite(data: Path, probes=SEARCH_FIRST_AND_SECOND, budget: int = 600,
                  captions: list[str] | None = None, name: str = "combo_0900_L0_S0_0") -> Path:
    from recallbench.world.env import PANDAOMRON_ARM_STEP, make_env

    kwargs = {"seed": 0, "arm_step": PANDAOMRON_ARM_STEP}
    env = make_env("RecallbenchKitchen", **kwargs)
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
    tasks = [{"index": i, "instruction": c} for i, c in enumerate(captions or [])]
    (root / "videos" / "subtasks.json").write_text(json.dumps({"fps": 20, "tasks": tasks}))
    env.close()
    return data
