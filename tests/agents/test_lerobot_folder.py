"""Issue 35 (CRITICAL): a LeRobot checkpoint folder is data. lerobot 0.4.4 imports any dotted
``"class"`` a ``*processor*.json`` names and calls it with the step's ``"config"``; recallbench now
checks every file lerobot would act on before lerobot sees the folder (one line naming the file
and the field), and ``--trust-policy`` lifts that for a folder the user trusts. Real folders
saved by lerobot's own ``save_pretrained``; each refusal test failed on the code before the fix
(the planted steps ran: the marker file appeared). Runs in .venv-lerobot."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from recallbench.errors import InputError
from support.lerobot_policy import save_act, save_processors
from support.policy_server import ENV, RECALLBENCH, run_records
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

pytest.importorskip("lerobot")
pytestmark = pytest.mark.lerobot

FEATURES = {"observation.state": ("STATE", (3,)), "observation.environment_state": ("ENV", (3,))}
PRE = "policy_preprocessor.json"
# A ProcessorStep that is no registered step, and harmless: a user's own, in a file they trust.
HARMLESS = """
from dataclasses import dataclass
from lerobot.processor import ProcessorStep

@dataclass
class Identity(ProcessorStep):
    def __call__(self, transition):
        return transition

    def transform_features(self, features):
        return features
"""


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    """One real ACT folder with lerobot's processors; each test copies it."""
    return save_processors(save_act(tmp_path_factory.mktemp("saved") / "act", FEATURES, 4))


@pytest.fixture
def folder(saved, tmp_path) -> Path:
    copy = tmp_path / "act"
    copy.mkdir()
    for path in saved.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    return copy


@pytest.fixture
def mapped(tmp_path) -> dict[str, str]:
    """The policy arguments mapping FEATURES' environment_state (outside recallbench's LeRobot
    naming, which the pre-check refuses unmapped)."""
    path = tmp_path / "features.map.json"
    path.write_text(json.dumps({"observation.environment_state": "base_pos"}))
    return {"obs_map": str(path)}


def plant(folder: Path, step: dict[str, Any], name: str = PRE) -> None:
    """``step`` as the first step of the folder's ``name`` (the rest as lerobot saved them)."""
    path = folder / name
    data = json.loads(path.read_text())
    data["steps"].insert(0, step)
    path.write_text(json.dumps(data))


def refused(folder: Path) -> InputError:
    """The folder is refused by the pre-check and by the loader each env worker runs."""
    from recallbench.agents.lerobot_policy import LeRobotPolicy, check_lerobot

    with pytest.raises(InputError) as pre:
        check_lerobot(str(folder), {})
    with pytest.raises(InputError) as load:
        LeRobotPolicy(str(folder))
    assert str(pre.value) == str(load.value) and "\n" not in str(pre.value)
    return pre.value


def _planted(marker: Path) -> list[tuple[dict[str, Any], str, str]]:
    """(step, field, words of the refusal): code by any path, an unregistered name, a lerobot
    class that is no registered step, a registered step that would run a model's own code, a
    state file out of the folder."""
    return [
        ({"class": "subprocess.Popen", "config": {"args": ["touch", str(marker)]}},
         "steps[0].class", "not a processor step lerobot registers"),
        # a lerobot. path to a callable that writes any file (safetensors' save_file)
        ({"class": "lerobot.processor.pipeline.save_file",
          "config": {"tensors": {}, "filename": str(marker)}},
         "steps[0].class", "not a processor step lerobot registers"),
        ({"class": "lerobot.processor.pipeline.ProcessorStep"}, "steps[0].class",
         "not a processor step"),
        ({"registry_name": "no_such_step"}, "steps[0].registry_name", "'no_such_step'"),
        ({"registry_name": "action_tokenizer_processor",
          "config": {"action_tokenizer_name": "someone/tokenizer"}},
         "steps[0].config.trust_remote_code", "must be false"),
        ({"registry_name": "to_batch_processor", "config": {},
          "state_file": "../elsewhere.safetensors"}, "steps[0].state_file", ".safetensors file"),
    ]


@pytest.mark.parametrize("case", range(6))
def test_a_planted_processor_step_runs_nothing_and_is_one_line(folder, tmp_path, case):
    marker = tmp_path / "MARKER"
    step, field, words = _planted(marker)[case]
    plant(folder, step, PRE if case % 2 else "policy_postprocessor.json")
    err = refused(folder)
    time.sleep(0.3)  # a Popen the old code started has touched its file by now
    assert not marker.exists()
    assert err.path.endswith(PRE if case % 2 else "policy_postprocessor.json")
    assert err.field == field and words in err.message, err
    assert "--trust-policy" in err.message or case == 5


def test_any_processor_json_in_the_folder_is_checked(folder, tmp_path):
    (folder / "extra_processor.json").write_text(json.dumps(
        {"name": "x", "steps": [{"class": "os.system", "config": {"command": "true"}}]}))
    assert refused(folder).field == "steps[0].class"


@pytest.mark.parametrize(("edit", "where", "field"), [
    (lambda f: _set_type(f, "no_such_policy"), "config.json", "type"),
    (lambda f: _set_type(f, "pi0_fast"), "config.json", "type"),  # trust_remote_code
    (lambda f: (f / "pytorch_model.bin").write_bytes(b"\x80\x04K\x01."), "pytorch_model.bin",
     None),
    (lambda f: (f / "extra.pt").write_bytes(b"\x80\x04K\x01."), "extra.pt", None),
])
def test_the_policy_type_and_the_weights_are_data_too(folder, edit, where, field):
    edit(folder)
    err = refused(folder)
    assert err.path.endswith(where) and err.field == field, err


def _set_type(folder: Path, value: str) -> None:
    path = folder / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "type": value}))


def test_the_untampered_folder_loads_with_its_processors(folder, mapped):
    from recallbench.agents.lerobot_policy import LeRobotPolicy, check_lerobot

    info = check_lerobot(str(folder), mapped)
    assert info["type"] == "act" and info["processors"] and info["trusted"] is False
    policy = LeRobotPolicy(str(folder))
    assert policy.pre is not None and len(policy.pre) == 4 and policy.post is not None


def test_trust_policy_lets_an_unregistered_harmless_step_through(folder, tmp_path, monkeypatch,
                                                                  mapped):
    from recallbench.agents.lerobot_policy import LeRobotPolicy, check_lerobot

    (tmp_path / "harmless_steps.py").write_text(HARMLESS)
    monkeypatch.syspath_prepend(str(tmp_path))
    plant(folder, {"class": "harmless_steps.Identity", "config": {}})
    assert refused(folder).field == "steps[0].class"
    assert check_lerobot(str(folder), mapped, trusted=True)["trusted"] is True
    policy = LeRobotPolicy(str(folder), trusted=True)
    assert type(policy.pre.steps[0]).__name__ == "Identity"


def _scenemem(folder: Path, data: Path, out: Path, *extra: str,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    obs_map = out.with_suffix(".map.json")
    obs_map.write_text(json.dumps({"observation.state": ["base_pos"],
                                   "observation.environment_state": "base_pos"}))
    return subprocess.run(
        [RECALLBENCH, "scenemem", "--data_dir", str(data), "--policy", f"lerobot:{folder}",
         "--policy-arg", f"obs_map={obs_map}", "--max_steps", "4", "--workers", "2",
         "--env_factory", MINI_FACTORY, "--out", str(out), *extra],
        env={**ENV, **(env or {})}, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_command_refuses_the_planted_folder_and_trusts_only_when_told(folder, tmp_path):
    marker = tmp_path / "MARKER"
    data = tmp_path / "data"
    mini_scenario(data / "combo_1", [mini_test("t0", "bowl"), mini_test("t1", "cup", "drawer")])
    bad = tmp_path / "bad"
    bad.mkdir()
    for path in folder.iterdir():
        (bad / path.name).write_bytes(path.read_bytes())
    plant(bad, {"class": "subprocess.Popen", "config": {"args": ["touch", str(marker)]}})
    proc = _scenemem(bad, data, tmp_path / "a.json")
    time.sleep(0.3)
    assert proc.returncode == 2 and not marker.exists(), proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert f"{bad / PRE}: steps[0].class: 'subprocess.Popen' is not a processor step" in line
    assert not (tmp_path / "a_run").exists()  # refused before any work

    (tmp_path / "harmless_steps.py").write_text(HARMLESS)
    plant(folder, {"class": "harmless_steps.Identity", "config": {}})
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    proc = _scenemem(folder, data, tmp_path / "b.json", "--trust-policy",
                     env={"PYTHONPATH": path})
    assert proc.returncode == 0, proc.stderr
    records = run_records(tmp_path / "b_run")
    assert len(records) == 2 and all(r["error"] is None and r["steps"] == 4
                                     for r in records.values()), records
    manifest = json.loads((tmp_path / "b_run" / "manifest.json").read_text())
    assert manifest["policy"]["trusted"] is True and manifest["config"]["trust_policy"] is True


def test_the_remote_code_types_cover_what_the_installed_lerobot_does():
    """Every policy type whose own package (as installed) calls from_pretrained with
    trust_remote_code=True is refused without --trust-policy: the list is lerobot's contract."""
    from lerobot.configs.policies import PreTrainedConfig

    from recallbench.agents.lerobot_folder import REMOTE_CODE_TYPES, policy_types

    found = set()
    for name in policy_types():
        module = PreTrainedConfig.get_choice_class(name).__module__
        package = Path(importlib.import_module(module).__file__).parent
        if any("trust_remote_code=True" in f.read_text() for f in package.glob("*.py")):
            found.add(name)
    assert found and found <= REMOTE_CODE_TYPES, found - REMOTE_CODE_TYPES
