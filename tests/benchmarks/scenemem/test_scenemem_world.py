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


class _Blind:
    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env) -> np.ndarray:
        action = np.zeros(env.action_dim)
        action[7] = 0.5  # drive forward: the scene changes under the cameras
        return action


class _Looking(_Blind):
    def get_action(self, env) -> np.ndarray:
        obs = env._get_observations()
        self.last = obs["robot0_eye_in_hand_image"].copy()
        return super().get_action(env)


def test_the_loop_renders_cameras_only_when_the_policy_asks(world_scenario, monkeypatch):
    """The loop steps the built-in world without building step's observation, which it never
    read: a policy that reads no image costs no render, one that reads renders once a step (it
    used to be twice), and the outcome is the same as stepping with env.step."""
    from recallbench.benchmarks.scenemem import rollout

    root, _ = world_scenario
    scenario = load_scenario(root)
    env = world_env.make_env(
        "RecallbenchKitchen", seed=0, use_camera_obs=True, camera_widths=32, camera_heights=32,
        camera_names=["robot0_agentview_left", "robot0_agentview_right", "robot0_eye_in_hand"])
    test, steps = scenario.spec.tests[0], 12
    never = Thresholds(approach_dist=-1.0)  # every rollout runs all its steps

    def run(policy, step_with=None):
        """The rollout's outcome and how many camera images were rendered."""
        load_start(env, scenario)  # (a new model: new renderers)
        rendered = []
        rgb = env.renders.rgb
        monkeypatch.setattr(env.renders, "rgb", lambda *a, **k: rendered.append(1) or rgb(*a, **k))
        if step_with:
            monkeypatch.setattr(rollout, "stepper", step_with)
        out = rollout.run_rollout(env, policy, scenario, test, steps, never)
        monkeypatch.undo()
        return out, len(rendered)

    blind, blind_renders = run(_Blind())
    assert blind_renders == 0 and blind.steps == steps
    looking = _Looking()
    seen, seen_renders = run(looking)
    assert seen_renders == 3 * steps  # the three cameras, once for each request
    old, old_renders = run(_Blind(), step_with=lambda e: e.step)
    assert old_renders == 3 * steps  # what stepping with env.step renders for nothing
    assert blind.to_dict() == old.to_dict() == seen.to_dict()
    assert looking.last.shape == (32, 32, 3) and looking.last.any()
    env.close()
