"""The robosuite backend with real robosuite: the card's loading steps, success, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from recallbench.benchmarks.scenemem.backend import (
    check_against_model,
    load_start,
    make_scenario_env,
)
from recallbench.benchmarks.scenemem.spec import load_scenario
from recallbench.benchmarks.scenemem.success import Thresholds, measure
from support.scenemem_fixtures.build import policy
from support.scenemem_fixtures.robosuite_door import DOOR_START, door_scenario, door_test

pytest.importorskip("robosuite")
pytestmark = pytest.mark.robosuite
os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("robosuite") / "data"
    door_scenario(
        data / "combo_900_L0_S0_0001",
        [door_test("OpenDoor_probe"), door_test("OpenDoor_probe_short", max_steps=3)],
    )
    return data


def set_joint(env, joint: str, value: float) -> None:
    sim = env.sim
    sim.data.qpos[sim.model.get_joint_qpos_addr(joint)] = value
    sim.forward()


@pytest.mark.slow
def test_card_loading_steps_and_success_rule_on_robosuite(data_dir):
    scenario = load_scenario(data_dir / "combo_900_L0_S0_0001")
    env = make_scenario_env(scenario)
    try:
        load_start(env, scenario)
        check_against_model(env, scenario)
        # cameras and the offscreen renderer on, as the card creates the env, although the
        # scenario's env_args say use_camera_obs False
        assert env.use_camera_obs and env.has_offscreen_renderer
        sim, card = env.sim, Thresholds()
        assert sim.data.get_joint_qpos("Door_hinge") == pytest.approx(DOOR_START)
        assert env.action_dim == 12  # PandaOmron: arm, gripper, base, torso, mode
        fixture = ("Door_main", ["Door_hinge"])
        m = measure(sim, *fixture, card)
        assert m.approached and not m.door_open and not m.success
        base = sim.data.body_xpos[sim.model.body_name2id("mobilebase0_support")][:2]
        door = sim.data.body_xpos[sim.model.body_name2id("Door_main")][:2]
        assert m.distance == pytest.approx(np.linalg.norm(base - door))
        set_joint(env, "Door_hinge", 0.6)
        m = measure(sim, *fixture, card)
        assert m.door_open and m.success
        # drive the base back through its joint: the xy distance grows past 1.2 m
        set_joint(env, "mobilebase0_joint_mobile_forward", -3.0)
        m = measure(sim, *fixture, card)
        assert m.distance > 1.2 and not m.approached and m.door_open and not m.success
        # the card's sequence restores the start exactly, on the same env object
        load_start(env, scenario)
        m = measure(env.sim, *fixture, card)
        assert env.sim.data.get_joint_qpos("Door_hinge") == pytest.approx(DOOR_START)
        assert m.approached and not m.door_open
    finally:
        env.close()


@pytest.mark.slow
def test_cli_end_to_end_headless_on_robosuite(data_dir, tmp_path):
    out = tmp_path / "results.json"
    proc = subprocess.run(
        [
            str(Path(sys.executable).with_name("recallbench")),
            "scenemem",
            "--data_dir",
            str(data_dir),
            "--policy",
            policy("Idle"),
            "--out",
            str(out),
            "--max_steps",
            "6",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MUJOCO_GL": "egl"},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text()) == {
        "results": [
            {
                "scenario": "combo_900_L0_S0_0001",
                "tests": [
                    {"test_id": "OpenDoor_probe", "memory": False},
                    {"test_id": "OpenDoor_probe_short", "memory": False},
                ],
            }
        ],
        "summary": {"total": 2, "memory": 0},
    }
    recs = {}
    for line in (tmp_path / "results_run" / "runlog.jsonl").read_text().splitlines():
        rec = json.loads(line)
        recs[rec["test_id"]] = rec
    for rec in recs.values():
        assert rec["error"] is None and rec["failed"] == "door"
        assert rec["min_distance"] < 1.2
        assert rec["max_abs_qpos"] == pytest.approx(DOOR_START, abs=0.05)
    assert recs["OpenDoor_probe"]["steps"] == 6  # --max_steps wins over the spec
    # both ran in one worker on one env object: the second did not inherit the first's state
    a, b = recs["OpenDoor_probe"], recs["OpenDoor_probe_short"]
    assert (a["min_distance"], a["max_abs_qpos"]) == (b["min_distance"], b["max_abs_qpos"])
    assert recs["OpenDoor_probe_short"]["steps"] == 6
    manifest = json.loads((tmp_path / "results_run" / "manifest.json").read_text())
    assert manifest["packages"]["robosuite"] == "1.5.2"
    assert manifest["robocasa_imported"] is False
