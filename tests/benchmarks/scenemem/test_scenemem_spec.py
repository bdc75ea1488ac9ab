"""Scenario loading: the eval_spec.json schema and one-line errors naming file and field."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from recallbench.benchmarks.scenemem.spec import discover_scenarios, load_scenario
from recallbench.errors import InputError
from support.scenemem_fixtures.build import mini_scenario, mini_test


@pytest.fixture
def scen(tmp_path):
    return mini_scenario(
        tmp_path / "data" / "combo_001_L1_S1_0001",
        [mini_test("find_bowl", "bowl"), mini_test("find_cup", "cup", "drawer")],
    )


def edit_spec(root, fn):
    path = root / "eval_spec.json"
    spec = json.loads(path.read_text())
    fn(spec)
    path.write_text(json.dumps(spec))


def load_error(root) -> InputError:
    with pytest.raises(InputError) as info:
        load_scenario(root)
    assert "\n" not in str(info.value)  # one line
    return info.value


def test_valid_scenario_loads_with_card_defaults(scen):
    s = load_scenario(scen)
    assert s.name == "combo_001_L1_S1_0001"
    t = s.test("find_bowl")
    assert t.task == "find_target"
    assert t.instruction == "Show me where the bowl is placed."
    assert t.max_steps is None
    assert t.fixture.joint_names == ["cabinet_door_hinge"]
    assert [p.rsplit("/", 1)[1] for p in s.video_paths] == [
        "robot0_agentview_left.mp4",
        "robot0_agentview_right.mp4",
        "robot0_eye_in_hand.mp4",
    ]
    assert s.env_args["env_name"] == "MiniKitchen"
    assert s.ep_meta["layout_id"] == 1


def test_unknown_extra_fields_are_accepted(scen):
    def add(spec):
        spec["dataset_version"] = "v2"
        spec["tests"][0]["object_pose"] = [1, 2, 3]
        spec["tests"][0]["fixture"]["handle"] = "left"

    edit_spec(scen, add)
    t = load_scenario(scen).test("find_bowl")
    assert t.model_extra["object_pose"] == [1, 2, 3]


def test_restore_task_gets_its_template_and_needs_a_target(scen):
    def restore(spec):
        spec["tests"][0]["task"] = "restore"

    edit_spec(scen, restore)
    err = load_error(scen)
    assert err.field == "tests[0]" and "object_body_name and target_pos" in str(err)

    def fill(spec):
        spec["tests"][0]["object_body_name"] = "bowl"
        spec["tests"][0]["target_pos"] = [0, 2, 0.05]

    edit_spec(scen, fill)
    t = load_scenario(scen).test("find_bowl")
    assert t.instruction == "Put the bowl back where it was."


@pytest.mark.parametrize(
    ("mutate", "field", "message"),
    [
        (
            lambda s: s["tests"][1]["fixture"].pop("joint_names"),
            "tests[1].fixture.joint_names",
            "Field required",
        ),
        (lambda s: s["tests"][0].pop("test_id"), "tests[0].test_id", "Field required"),
        (lambda s: s["tests"][0].update(task="find_anything"), "tests[0].task", "find_target"),
        (lambda s: s["tests"][0].update(max_steps=0), "tests[0].max_steps", "greater than 0"),
        (
            lambda s: s["tests"][1]["fixture"].update(joint_names=[]),
            "tests[1].fixture.joint_names",
            "at least 1",
        ),
        (lambda s: s["tests"][1].update(test_id="find_bowl"), "<root>", "duplicate test_id"),
        (lambda s: s.pop("tests"), "tests", "Field required"),
    ],
)
def test_schema_errors_name_file_and_field(scen, mutate, field, message):
    edit_spec(scen, mutate)
    err = load_error(scen)
    assert err.path.endswith("combo_001_L1_S1_0001/eval_spec.json")
    assert err.field == field
    assert message in str(err)


def test_missing_and_malformed_spec(scen):
    (scen / "eval_spec.json").write_text('{"tests": [')
    err = load_error(scen)
    assert err.path.endswith("eval_spec.json") and "malformed JSON" in str(err)
    (scen / "eval_spec.json").unlink()
    assert "file is missing" in str(load_error(scen))


def test_missing_video(scen):
    (scen / "videos" / "robot0_agentview_right.mp4").unlink()
    err = load_error(scen)
    assert err.path.endswith("videos/robot0_agentview_right.mp4")
    assert err.field == "videos[1]"


def test_fixture_names_must_exist_in_the_model(scen):
    edit_spec(scen, lambda s: s["tests"][1]["fixture"].update(body_name="fridge_main"))
    err = load_error(scen)
    assert err.field == "tests[1].fixture.body_name" and "'fridge_main'" in str(err)

    def bad_joint(s):
        s["tests"][1]["fixture"]["body_name"] = "drawer_main"
        s["tests"][0]["fixture"]["joint_names"] = ["cabinet_door_hinge", "door_joint"]

    edit_spec(scen, bad_joint)
    err = load_error(scen)
    assert err.field == "tests[0].fixture.joint_names[1]" and "'door_joint'" in str(err)


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.zeros((2, 3)), "1-D float array"),
        (np.array([1.0, np.nan]), "NaN or inf"),
        (np.arange(4), "1-D float array"),
    ],
)
def test_start_state_must_be_a_finite_float_vector(scen, array, message):
    np.save(scen / "env" / "start_state.npy", array)
    err = load_error(scen)
    assert err.path.endswith("env/start_state.npy") and message in str(err)


def test_env_args_need_an_env_name(scen):
    (scen / "env" / "env_args.json").write_text(json.dumps({"env_kwargs": {}}))
    err = load_error(scen)
    assert err.path.endswith("env/env_args.json") and err.field == "env_name"


def test_discover_sorts_filters_and_keeps_folders_missing_a_spec(tmp_path, scen):
    data = scen.parent
    (data / "combo_000_L2_S2_0002" / "env").mkdir(parents=True)  # spec missing: still listed
    (data / "notes").mkdir()
    names = [p.name for p in discover_scenarios(data)]
    assert names == ["combo_000_L2_S2_0002", "combo_001_L1_S1_0001"]
    assert [p.name for p in discover_scenarios(data, "L1_")] == ["combo_001_L1_S1_0001"]
    with pytest.raises(InputError, match=re.escape("data directory (--data-dir) does not exist")):
        discover_scenarios(tmp_path / "nope")
