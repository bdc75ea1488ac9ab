"""Issue 35 (SceneMem suites, LOW): a suite's step counts are integers, its files and scenario
folders stay inside it, a link loop is reported, and the world it asks the built-in home for is
bounded. Each refusal is one line naming the file and the field; each test failed on the code
before the fix."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from recallbench.benchmarks.limits import MAX_CAMERA_SIDE, MAX_WORLD_LIST, MAX_WORLD_OBJECTS
from recallbench.benchmarks.scenemem.spec import (
    WORLD_KEY,
    check_world_size,
    discover_scenarios,
    load_scenario,
)
from recallbench.errors import InputError, SuiteRefusal
from support.fault_support import cli, error_lines, records
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test


@pytest.fixture
def scen(tmp_path: Path) -> Path:
    return mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])


def refusal(root: Path, kind: type[InputError] = InputError, **kw: bool) -> InputError:
    with pytest.raises(kind) as info:
        load_scenario(root, **kw)
    assert "\n" not in str(info.value)
    return info.value


def _edit(path: Path, fn) -> None:
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))


def test_max_steps_true_is_not_a_step_count(scen):
    _edit(scen / "eval_spec.json", lambda s: s["tests"][0].update(max_steps=True))
    err = refusal(scen)
    assert err.path.endswith("combo_1/eval_spec.json") and err.field == "tests[0].max_steps"
    assert "integer" in err.message


@pytest.mark.parametrize(("name", "field"), [("videos/robot0_agentview_left.mp4", "videos[0]"),
                                             ("env/unified_model.xml", None),
                                             ("env/ep_meta.json", None)])
def test_a_file_linked_outside_the_scenario_is_refused_unless_trusted(tmp_path, scen, name,
                                                                      field):
    outside = tmp_path / "elsewhere" / Path(name).name
    outside.parent.mkdir()
    shutil.move(scen / name, outside)
    (scen / name).symlink_to(outside)
    err = refusal(scen, SuiteRefusal)
    assert err.path == str(scen.resolve() / name) and err.field == field
    assert "outside the scenario folder" in err.message and "--trust-suite" in err.message
    assert load_scenario(scen, trusted=True).name == "combo_1"


def test_a_link_inside_the_scenario_still_loads(scen):
    video = scen / "videos" / "robot0_agentview_left.mp4"
    shutil.move(video, scen / "videos" / "kept.mp4")
    video.symlink_to("kept.mp4")
    assert load_scenario(scen).name == "combo_1"


def test_a_scenario_folder_linked_outside_the_suite_is_refused_unless_trusted(tmp_path, scen):
    data = tmp_path / "data"
    outside = mini_scenario(tmp_path / "other" / "combo_2", [mini_test("t", "cup")])
    (data / "combo_2").symlink_to(outside)
    assert [p.name for p in discover_scenarios(data)] == ["combo_1", "combo_2"]
    err = refusal(data / "combo_2", SuiteRefusal)
    assert err.path == str(data / "combo_2") and "outside the suite folder" in err.message
    assert load_scenario(data / "combo_2", trusted=True).name == "combo_2"


def test_a_symlink_loop_is_reported_not_skipped(tmp_path, scen):
    data = tmp_path / "data"
    os.symlink(data / "combo_loop", data / "combo_loop")
    assert [p.name for p in discover_scenarios(data)] == ["combo_1", "combo_loop"]
    err = refusal(data / "combo_loop", trusted=True)  # trusted or not: it is no folder
    assert err.path == str(data / "combo_loop") and "symlink loop" in err.message


@pytest.mark.parametrize(("file", "fn", "field"), [
    ("ep_meta.json", lambda m: m.update({WORLD_KEY: {"n_objects": 100_000}}),
     f"{WORLD_KEY}.n_objects"),
    ("ep_meta.json", lambda m: m.update({WORLD_KEY: {"n_objects": True}}),
     f"{WORLD_KEY}.n_objects"),
    ("ep_meta.json", lambda m: m.update({WORLD_KEY: {"objects": [{}] * (MAX_WORLD_LIST + 1)}}),
     f"{WORLD_KEY}.objects"),
    ("ep_meta.json", lambda m: m.update({WORLD_KEY: [1]}), WORLD_KEY),
    ("env_args.json", lambda a: a["env_kwargs"].update(n_objects=MAX_WORLD_OBJECTS + 1),
     "env_kwargs.n_objects"),
    ("env_args.json", lambda a: a["env_kwargs"].update(camera_width=10**6),
     "env_kwargs.camera_width"),
    ("env_args.json", lambda a: a["env_kwargs"].update(camera_heights=[64, 10**6]),
     "env_kwargs.camera_heights[1]"),
])
def test_world_size_fields_are_bounded(scen, file, fn, field):
    _edit(scen / "env" / file, fn)
    err = refusal(scen)
    assert err.path.endswith(f"combo_1/env/{file}") and err.field == field, err


def test_the_bounds_sit_above_what_the_generator_builds():
    from recallbench.world.builder import build_world

    meta = build_world(0, 0, "home").meta  # the generator's largest default world
    check_world_size({WORLD_KEY: meta}, {"n_objects": meta["n_objects"], "camera_width": 256},
                     Path("env"))
    assert meta["n_objects"] * 50 <= MAX_WORLD_OBJECTS and MAX_CAMERA_SIDE >= 2048
    assert max(len(v) for v in meta.values() if isinstance(v, list)) * 100 <= MAX_WORLD_LIST


@pytest.mark.slow
def test_a_run_reports_each_bad_scenario_in_one_line_and_runs_the_rest(tmp_path, scen):
    data = tmp_path / "data"
    os.symlink(data / "combo_loop", data / "combo_loop")
    big = mini_scenario(data / "combo_big", [mini_test("t", "cup")])
    _edit(big / "env" / "ep_meta.json", lambda m: m.update({WORLD_KEY: {"n_objects": 100_000}}))
    proc = cli("scenemem", "--data_dir", str(data), "--policy", "do-nothing", "--out",
               str(tmp_path / "r.json"), "--workers", "1", "--max_steps", "3",
               "--env_factory", MINI_FACTORY)
    assert proc.returncode == 1, proc.stderr  # some scenarios failed to load
    lines = error_lines(proc.stderr)
    assert len(lines) == 2, proc.stderr
    assert any("combo_loop: a symlink loop" in line for line in lines), lines
    assert any(f"combo_big/env/ep_meta.json: {WORLD_KEY}.n_objects" in line
               for line in lines), lines
    by_key = {r["key"]: r for r in records(tmp_path / "r_run")}
    assert by_key["combo_1/t"]["error"] is None and by_key["combo_1/t"]["steps"] == 3
    assert "ep_meta.json: recallbench_world.n_objects" in by_key["combo_big/t"]["error"]
