"""The SceneMem harness on the built-in world (env names starting "Recallbench")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from recallbench.benchmarks.scenemem.backend import load_start, make_scenario_env
from recallbench.benchmarks.scenemem.spec import load_scenario
from recallbench.benchmarks.scenemem.success import Thresholds, measure
from support.scenemem_fixtures.build import policy, write_scenario

world_env = pytest.importorskip("recallbench.world.env")


def fixture_test(test_id: str, fixture: dict) -> dict:
    keep = ("name", "type", "body_name", "joint_names")
    return {
        "test_id": test_id,
        "object": "bowl_1",
        "category": "bowl",
        "fixture": {k: fixture[k] for k in keep},
    }


@pytest.fixture(scope="module")
def world_scenario(tmp_path_factory) -> tuple[Path, dict]:
    env = world_env.make_env("RecallbenchKitchen", seed=0)
    env.reset()
    fixtures = {f["name"]: f for f in env.world_meta["fixtures"]}
    root = tmp_path_factory.mktemp("world") / "data" / "combo_500_L0_S0_0000"
    write_scenario(
        root,
        [
            fixture_test("fridge_probe", fixtures["fridge"]),
            fixture_test("drawer_probe", fixtures["drawer_1"]),
        ],
        env.xml,
        env.sim.get_state().flatten(),
        {"env_name": "RecallbenchKitchen", "env_kwargs": {"seed": 0}},
        env.get_ep_meta(),
    )
    env.close()
    return root, fixtures


def test_builtin_world_loads_through_the_card_steps_and_scores(world_scenario):
    root, fixtures = world_scenario
    scenario = load_scenario(root)
    env = make_scenario_env(scenario)
    assert type(env).__name__ == "HomeEnv"
    load_start(env, scenario)
    fridge = fixtures["fridge"]
    args = (fridge["body_name"], fridge["joint_names"], Thresholds())
    assert not measure(env.sim, *args).door_open
    sim = env.sim
    # 0.8 m out from the fridge body toward its approach pose
    body = sim.data.xpos[sim.model.body_name2id(fridge["body_name"])][:2]
    away = np.asarray(fridge["approach_pose"][:2]) - body
    env.teleport([*(body + 0.8 * away / np.linalg.norm(away)), fridge["approach_pose"][2]])
    sim.data.qpos[sim.model.get_joint_qpos_addr(fridge["joint_names"][0])] = 0.8
    sim.forward()
    m = measure(sim, *args)
    assert m.approached and m.door_open and m.success
    load_start(env, scenario)  # the start state comes back exactly
    assert measure(env.sim, *args) == measure(env.sim, *args)
    assert not measure(env.sim, *args).door_open
    env.close()


@pytest.mark.slow
def test_cli_runs_on_the_builtin_world(world_scenario, tmp_path):
    root, _ = world_scenario
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [
            str(Path(sys.executable).with_name("recallbench")),
            "scenemem",
            "--data_dir",
            str(root.parent),
            "--policy",
            policy("Idle"),
            "--out",
            str(out),
            "--max_steps",
            "5",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")},
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(out.read_text())
    assert results["summary"] == {"total": 2, "memory": 0}
    for line in (tmp_path / "results_run" / "runlog.jsonl").read_text().splitlines():
        rec = json.loads(line)
        assert rec["error"] is None and rec["steps"] == 5 and rec["failed"] in ("door", "both")
