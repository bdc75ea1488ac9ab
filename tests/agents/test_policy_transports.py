"""Issue 39: a policy transport is one declaration plus its code. The toy transport
(``tests/support/toy_transport.py``, scheme ``toy://``) is registered only through the
entry-point group ``recallbench.policy_transports`` by a ``dist-info`` folder on PYTHONPATH, with
no edit to recallbench: `--policy` (scenemem) and `run`'s agents accept it, its check runs
before any work, `recallbench list transports` lists it. docs/vla.md's table is the table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fault_support import cli, error_lines
from support.plugins import install
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

SUPPORT = Path(__file__).resolve().parents[1] / "support"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "vla.md"


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> dict[str, str]:
    """The environment that installs the toy transport (a module and its dist-info)."""
    return install(tmp_path_factory.mktemp("site"), "toy",
                   "[recallbench.policy_transports]\ntoy = toy_transport:TRANSPORT\n",
                   {"toy_transport.py": SUPPORT / "toy_transport.py"})


def suite(root: Path) -> Path:
    mini_scenario(root / "combo_007_L3_S4_0001", [mini_test("t0", "obj0", "drawer")],
                  base_xy=(1.0, 0.5))
    return root


def test_a_plugin_transport_is_listed(toy):
    done = cli("list", "transports", "--format", "json", env=toy)
    assert done.returncode == 0, done.stderr
    rows = {row["kind"]: row for row in json.loads(done.stdout)}
    assert list(rows) == ["served", "lerobot", "toy"]
    assert rows["toy"] == {"policy": "toy://NAME", "kind": "toy", "extra": "-",
                           "what": "a test transport: zero actions"}


@pytest.mark.parametrize("command", ["scenemem", "run"])
def test_a_plugin_transports_check_refuses_before_any_work(toy, tmp_path, command):
    data = suite(tmp_path / "data")
    if command == "scenemem":
        args = ["scenemem", "--data_dir", str(data), "--policy", "toy://nope",
                "--out", str(tmp_path / "r.json"), "--env_factory", MINI_FACTORY]
        said = "--policy toy://nope: no toy policy 'nope' (known: idle)"
    else:
        args = ["run", "--suite", str(data), "--agents", "do-nothing,toy://nope",
                "--out", str(tmp_path / "cmp"), "--scenemem-env-factory", MINI_FACTORY]
        said = "agent 'toy://nope' at toy://nope: no toy policy 'nope' (known: idle)"
    done = cli(*args, env=toy)
    assert done.returncode == 2, done.stderr
    (line,) = error_lines(done.stderr)
    assert line.endswith(said), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # nothing written


@pytest.mark.slow
def test_a_plugin_transport_runs_in_scenemem_and_run(toy, tmp_path):
    data = suite(tmp_path / "data")
    done = cli("scenemem", "--data_dir", str(data), "--policy", "toy://idle", "--out",
               str(tmp_path / "r.json"), "--env_factory", MINI_FACTORY, env=toy)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "r_run" / "manifest.json").read_text())
    assert manifest["policy"] == {"kind": "toy", "toy": "idle", "args": []}  # its check's
    done = cli("run", "--suite", str(data), "--agents", "toy://idle", "--out",
               str(tmp_path / "cmp"), "--scenemem-env-factory", MINI_FACTORY, env=toy)
    assert done.returncode == 0, done.stderr
    block = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    agents = block["benchmarks"]["scenemem"]["agents"]
    assert [(a["agent"], a["n"]) for a in agents] == [("toy://idle", 1)]


def test_the_built_in_kinds_come_from_the_table():
    from recallbench.agents.transports import BUILTIN, policy_kind, transport_of

    assert [t.kind for t in BUILTIN] == ["served", "lerobot"]
    for ref, kind in (("openpi://h:1", "served"), ("ws://h:1", "served"),
                      ("wss://h:1", "served"), ("lerobot:/ckpt", "lerobot"),
                      ("my_policy.py:Mine", "card"), ("pkg.mod:Cls", "card")):
        assert policy_kind(ref) == kind, ref
    assert transport_of(None) is None


def test_the_docs_table_is_the_declaration():
    """docs/vla.md holds the table ``transports.table()`` writes, between its markers."""
    from recallbench.agents.transports import BUILTIN, table

    text = DOCS.read_text()
    begin, end = "<!-- transports: begin -->\n", "<!-- transports: end -->"
    assert begin in text and end in text, "docs/vla.md has no generated transports table"
    shown = text.split(begin, 1)[1].split(end, 1)[0]
    assert shown == table(BUILTIN), ("docs/vla.md's transports table differs from the "
                                     "declaration: paste recallbench.agents.transports.table()")
