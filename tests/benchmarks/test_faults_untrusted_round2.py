"""Fault injection, round two (issue 21): a data repo runs no code unless the policy imports it,
a policy's folder shadows no installed package, and one bad suite file is one line naming it.
Real processes, real MuJoCo, real videos. Every test failed on the code before the fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.fault_support import cli, records
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

CARD_INIT = "open({marker!r}, 'w').write('ran')\n"
CARD_BASE = "class BasePolicy:\n    pass\n"
CARD_POLICY = """
import numpy as np
from eval.base_policy import BasePolicy

class MyPolicy(BasePolicy):
    def reset(self, instruction, video_paths):
        pass

    def get_action(self, env):
        return np.zeros(env.action_dim)
"""


def _card_repo(tmp_path: Path, marker: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "eval").mkdir(parents=True)
    (repo / "eval" / "__init__.py").write_text(CARD_INIT.format(marker=str(marker)))
    (repo / "eval" / "base_policy.py").write_text(CARD_BASE)
    mini_scenario(repo / "data" / "combo_1", [mini_test("t", "bowl")])
    return repo


def _scenemem(repo: Path, policy: str, out: Path, cwd: Path | None = None):
    return cli("scenemem", "--data_dir", str(repo / "data"), "--policy", policy, "--out",
               str(out), "--workers", "1", "--max_steps", "3", "--env_factory", MINI_FACTORY,
               cwd=cwd)


@pytest.mark.slow
def test_the_card_eval_package_runs_only_when_the_policy_imports_it(tmp_path):
    marker = tmp_path / "ran"
    repo = _card_repo(tmp_path, marker)
    proc = _scenemem(repo, "do-nothing", tmp_path / "a.json")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()  # a built-in policy: the repo's eval/__init__.py never ran
    assert "running the data repo" not in proc.stderr
    (tmp_path / "card_policy.py").write_text(CARD_POLICY)
    proc = _scenemem(repo, f"{tmp_path / 'card_policy.py'}:MyPolicy", tmp_path / "b.json")
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()  # the card's policy imports eval: it runs, and a line says so
    assert f"running the data repo's {repo / 'eval'}/__init__.py" in proc.stderr
    assert records(tmp_path / "b_run")[0]["error"] is None


@pytest.mark.slow
def test_a_policy_folder_cannot_shadow_an_installed_package(tmp_path):
    marker = tmp_path / "shadowed"
    repo = _card_repo(tmp_path, tmp_path / "ran")
    (repo / "pydantic.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\nraise ImportError('fake pydantic')\n")
    (repo / "my_policy.py").write_text(CARD_POLICY)
    proc = _scenemem(repo, f"{repo / 'my_policy.py'}:MyPolicy", tmp_path / "r.json", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    [record] = records(tmp_path / "r_run")
    assert record["error"] is None, record


# ------------------------------------------------------------------------- the model files
@pytest.mark.slow
def test_env_kwargs_carrying_a_model_or_a_file_are_refused(tmp_path):
    from support.fault_support import error_lines, set_env_args

    marker = tmp_path / "outside.xml"
    marker.write_text("<mujoco/>")
    scen = mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])
    set_env_args(scen, env_kwargs={"use_camera_obs": False, "xml": f'<mujoco><include '
                                   f'file="{marker}"/></mujoco>', "world_meta": {}})
    proc = _scenemem(tmp_path, "do-nothing", tmp_path / "r.json")
    assert proc.returncode == 1
    [line] = error_lines(proc.stderr)
    assert "env_args.json: env_kwargs.xml: a suite may not hand the env a model" in line
    assert "Traceback" not in proc.stderr


def _scenario_with_include(tmp_path: Path, included: str) -> tuple[str, Path]:
    from recallbench.benchmarks.scenemem.spec import load_scenario

    scen = load_scenario(mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")]))
    (scen.root / "env" / "textures").mkdir()
    (scen.root / "env" / "parts.xml").write_text(included)
    xml = scen.xml_path.read_text().replace(
        '<compiler angle="radian"/>', '<compiler angle="radian" texturedir="textures"/>').replace(
        "<worldbody>", '<include file="parts.xml"/>\n<worldbody>', 1)
    return xml, scen.xml_path


def test_a_compiler_directory_set_in_an_included_file_is_checked(tmp_path):
    from recallbench.benchmarks.scenemem.model_files import safe_model_xml
    from recallbench.errors import SuiteRefusal

    outside = tmp_path / "secrets"
    outside.mkdir()
    xml, path = _scenario_with_include(tmp_path, (
        f'<mujocoinclude><compiler texturedir="{outside}"/><asset><texture name="leak" '
        'type="2d" file="key.png"/></asset></mujocoinclude>'))
    with pytest.raises(SuiteRefusal, match="texturedir.*outside the scenario"):
        safe_model_xml(xml, path)


def test_a_fifo_named_by_the_model_is_refused_not_read(tmp_path):
    import os
    import threading

    from recallbench.benchmarks.scenemem.model_files import safe_model_xml

    xml, path = _scenario_with_include(tmp_path, "<mujocoinclude/>")
    (path.parent / "parts.xml").unlink()
    os.mkfifo(path.parent / "parts.xml")  # opening it for reading blocks until a writer comes
    caught: list[BaseException] = []

    def check() -> None:
        try:
            safe_model_xml(xml, path)
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=check, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "blocked reading a FIFO"
    [exc] = caught
    assert "parts.xml" in str(exc) and "is not a regular file" in str(exc)


# ------------------------------------------------- one bad suite file: one line naming it
def _damage(path: Path, how: str) -> None:
    path.unlink()
    if how == "not_utf8":
        path.write_bytes(b'\xff\xfe{"a": 1}')
    elif how == "deep":
        path.write_text("[" * 100_000)
    else:
        path.mkdir()


@pytest.mark.parametrize(("name", "how"), [("eval_spec.json", "not_utf8"),
                                           ("env/env_args.json", "deep"),
                                           ("eval_spec.json", "folder"),
                                           ("videos/subtasks.json", "not_utf8"),
                                           ("env/unified_model.xml", "folder")])
@pytest.mark.slow
def test_one_bad_scenemem_file_skips_its_scenario_naming_the_file(tmp_path, name, how):
    from support.fault_support import error_lines

    scen = mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])
    (scen / "videos" / "subtasks.json").write_text("{}")
    _damage(scen / name, how)
    proc = _scenemem(tmp_path, "do-nothing", tmp_path / "r.json")
    assert proc.returncode == 1, proc.stderr
    [line] = error_lines(proc.stderr)
    assert f"combo_1/{name}:" in line and "--policy" not in line, line
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("how", ["not_utf8", "deep", "folder", "huge_int"])
def test_one_bad_findingdory_file_is_one_line_naming_it(tmp_path, capsys, how):
    from recallbench.cli import main
    from support.fault_support import fd_rows

    suite = fd_rows(tmp_path)
    if how == "huge_int":
        (suite / "qa.json").write_text('[{"ep_id": "ep_a", "x": ' + "7" * 5000 + "}]")
    else:
        _damage(suite / "qa.json", how)
    code = main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(tmp_path / "run")])
    out = "".join(capsys.readouterr())
    assert code == 2, out
    assert out.count("error:") == 1 and "qa.json" in out and "internal error" not in out, out
