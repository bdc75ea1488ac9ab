"""Agent registry: built-ins, installed entry points, module:Class and file.py:Class."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from recallbench.agents.baselines import OracleAgent, RandomAgent
from recallbench.agents.registry import (
    KINDS,
    REGISTRY,
    agent_kind,
    list_agents,
    load_agent,
    resolve,
)
from recallbench.cli import main
from recallbench.errors import InputError
from support.shared_data import FINDINGDORY_VAL_QA

VAL = FINDINGDORY_VAL_QA

AGENT_SOURCE = textwrap.dedent(
    """
    from recallbench.benchmarks.findingdory.protocol import FrameAnswer


    class LastFrame:
        name = "last-frame"
        privileged = False

        def __init__(self, offset=0):
            self.offset = offset

        def select_frames(self, query, frames):
            n = query.num_targets or 1
            return FrameAnswer(frame_indices=[len(query.offered_frames) - 1 - self.offset] * n)
    """
)


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real installed distribution: a module plus a dist-info with an entry point."""
    (tmp_path / "rb_plugin_agents.py").write_text(AGENT_SOURCE)
    info = tmp_path / "rb_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rb-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[recallbench.agents]\nlast-frame = rb_plugin_agents:LastFrame\n"
        "oracle = rb_plugin_agents:LastFrame\n"  # must not shadow the built-in
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_builtins_load_by_name() -> None:
    assert {"oracle", "random", "blind", "recency"} <= set(REGISTRY)
    assert isinstance(load_agent("oracle"), OracleAgent)
    agent = load_agent("random", seed=4)
    assert isinstance(agent, RandomAgent) and agent.seed == 4
    blind = resolve("recallbench.agents.baselines:BlindAgent", "findingdory")
    assert blind.__name__ == "BlindAgent"


def test_entry_point_agents_are_listed_and_loaded(installed_plugin: Path) -> None:
    agents = list_agents()
    assert agents["last-frame"]["targets"] == {"findingdory": "rb_plugin_agents:LastFrame"}
    assert agents["last-frame"]["source"] == "entry point (rb-plugin)"
    assert agents["oracle"]["source"] == "builtin"
    agent = load_agent("last-frame", offset=2)
    assert agent.offset == 2 and type(agent).__name__ == "LastFrame"
    assert isinstance(load_agent("oracle"), OracleAgent)


def test_list_agents_command(installed_plugin: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["list", "agents"]) == 0
    out = capsys.readouterr().out
    assert "last-frame" in out and "rb-plugin" in out and "recency" in out
    # which benchmarks each name runs on: oracle on both, search on SceneMem only
    # (at 80 columns the descriptions are a second table: a name's rows of both, joined)
    lines: dict[str, str] = {}
    for line in out.splitlines():
        if len(line.split()) > 2:
            lines[line.split()[1]] = lines.get(line.split()[1], "") + line
    assert "findingdory" in lines["oracle"] and "scenemem" in lines["oracle"]
    assert "scenemem" in lines["search"] and "findingdory" not in lines["search"]
    # and what each one's score means: its kind (an entry point declaring none: memory)
    assert "privileged" in lines["oracle"] and "memoryless" in lines["time-prior"]
    assert " memory " in lines["last-frame"]


def test_file_path_spec_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "my_agent.py"
    path.write_text(AGENT_SOURCE)
    agent = load_agent(f"{path}:LastFrame", offset=1)
    assert agent.offset == 1
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        load_agent("nope")
    with pytest.raises(ValueError, match="has no attribute 'Missing'"):
        load_agent(f"{path}:Missing")
    with pytest.raises(ValueError, match="cannot import module"):
        load_agent("no_such_module_xyz:Agent")
    with pytest.raises(ValueError, match="not found"):
        load_agent(f"{tmp_path / 'absent.py'}:A")


@pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")
def test_entry_point_agent_runs_by_name(installed_plugin: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(VAL), "--agent", "last-frame", "--out", str(run)]
    assert main([*args, "--limit", "30", "--agent-arg", "offset=1"]) == 0
    records = [json.loads(line) for line in (run / "runlog.jsonl").read_text().splitlines()]
    assert len(records) == 30 and all(r["frame_indices"][0] == 94 for r in records)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["agent"] == "last-frame" and manifest["agent_kwargs"] == {"offset": 1}


# --- agent kinds (issue 24): registry data, declared by third-party classes, recorded by runs

def test_every_builtin_has_its_kind_and_shared_classes_agree() -> None:
    assert all(e.kind in KINDS for e in REGISTRY.values())
    expected = {"time-prior": "memoryless", "question-only": "memoryless", "blind": "memoryless",
                "search": "memoryless", "recency": "memoryless", "do-nothing": "memoryless",
                "oracle": "privileged", "hierarchical-privileged": "privileged",
                "random": "random", "random-actions": "random", "vlm": "memory",
                "text-memory": "memory", "hierarchical": "memory",
                "hierarchical-embedding": "memory", "hierarchical-vlm": "memory"}
    assert {name: REGISTRY[name].kind for name in expected} == expected
    # a class two names share (blind and search, oracle and hierarchical-privileged) has one
    # kind, so a run that recorded only its class is told its kind without ambiguity
    by_target: dict[str, set[str]] = {}
    for e in REGISTRY.values():
        for target in e.targets.values():
            by_target.setdefault(target, set()).add(e.kind)
    assert all(len(kinds) == 1 for kinds in by_target.values()), by_target
    assert agent_kind("memoryless") == "memoryless"  # an alias: search
    assert agent_kind("recallbench.agents.hierarchical:HierarchicalRandom") == "random"
    assert agent_kind("openpi://localhost:8000") == "memory"  # served: declares nothing


def test_third_party_agents_declare_their_kind(tmp_path: Path, installed_plugin: Path) -> None:
    path = tmp_path / "kinds.py"
    path.write_text(AGENT_SOURCE + textwrap.dedent("""

        class Floor(LastFrame):
            agent_kind = "memoryless"


        class Smart(LastFrame):
            agent_kind = "clever"
        """))
    assert agent_kind(f"{path}:LastFrame") == "memory"  # the default
    assert agent_kind(f"{path}:Floor") == "memoryless"
    assert agent_kind("last-frame") == "memory"  # an entry point
    with pytest.raises(InputError) as err:
        agent_kind(f"{path}:Smart")
    message = str(err.value)
    assert "Smart" in message and "agent_kind" in message and "'clever'" in message
    assert "memoryless" in message and "\n" not in message


@pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")
def test_runs_record_the_agent_kind(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "kinds.py"
    path.write_text(AGENT_SOURCE + "\n\nclass Ceiling(LastFrame):\n    agent_kind = 'privileged'\n"
                    "\n\nclass Smart(LastFrame):\n    agent_kind = 'clever'\n")
    for agent, kind in (("time-prior", "memoryless"), (f"{path}:LastFrame", "memory"),
                        (f"{path}:Ceiling", "privileged")):
        run = tmp_path / kind
        assert main(["findingdory", "--data", str(VAL), "--agent", agent, "--out", str(run),
                     "--limit", "3"]) == 0
        assert json.loads((run / "manifest.json").read_text())["agent_kind"] == kind
    capsys.readouterr()
    run = tmp_path / "clever"
    assert main(["findingdory", "--data", str(VAL), "--agent", f"{path}:Smart", "--out",
                 str(run), "--limit", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "agent_kind" in err and "'clever'" in err
    assert not (run / "runlog.jsonl").exists()  # refused before any case ran
    cmp = tmp_path / "cmp"  # a comparison refuses it while planning, before any agent runs
    assert main(["run", "--suite", str(VAL), "--agents", f"blind,{path}:Smart", "--out",
                 str(cmp)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "agent_kind" in err and "Smart" in err
    assert not (cmp / "findingdory" / "blind").exists()
