"""`recallbench run`: agents compared on a suite holding both benchmarks, through the real
runners (SceneMem worker processes, FindingDory run log), into one table per benchmark with
intervals, comparison.json, PNG charts and a self-contained HTML report."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image

from recallbench.agents.registry import list_agents, meaning, resolve
from recallbench.benchmarks.registry import detect_suites
from recallbench.cli import main
from recallbench.cli.run import parse_agent_args
from recallbench.errors import InputError
from support.chat_server import ChatServer, Reply
from support.findingdory_suite import build_suite
from support.kitchen import kitchen_suite

AGENTS = "oracle,blind,random,do-nothing,recency,text-memory"


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("suite")
    kitchen_suite(root / "scenemem")
    (root / "findingdory").mkdir()
    build_suite(root / "findingdory")
    return root


def by_agent(block: dict) -> dict[str, dict]:
    return {a["agent"]: a for a in block["agents"]}


@pytest.fixture(scope="module")
def compared(suite, tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "run"
    reply = Reply(content=json.dumps({"chain_of_thought": "", "frame_indices": [0]}))
    # the whole comparison runs inside: the server must outlive it even on a loaded machine
    with ChatServer([], default=reply, lifetime=1800) as server:
        args = ["run", "--suite", str(suite), "--agents", AGENTS, "--out", str(out),
                "--workers", "2", "--frames", "40",
                "--agent-arg", "text-memory.model=test-llm",
                "--agent-arg", f"text-memory.base_url={server.base_url}",
                "--agent-arg", "text-memory.chunk_size=10",
                "--agent-arg", "text-memory.captioner="
                               "recallbench.agents.annotation_captions:AnnotationCaptioner"]
        assert main(args) == 0
        sent = [r.text() for r in server.requests]
    return out, json.loads((out / "comparison.json").read_text()), args, sent


@pytest.mark.slow
def test_scenemem_table_orders_the_baselines(compared):
    _, comparison, _, _ = compared
    sm = by_agent(comparison["benchmarks"]["scenemem"])
    for name in ("oracle", "blind", "random", "do-nothing"):
        assert sm[name]["status"] == "ok" and sm[name]["n"] == 2, sm[name]
    success = {k: v["metrics"]["memory_success"] for k, v in sm.items() if v["status"] == "ok"}
    assert success["oracle"]["value"] == 1.0
    assert success["blind"]["value"] == 0.5  # memoryless search: the near fixture only
    assert success["do-nothing"]["value"] == 0.0
    assert sm["blind"]["target"].endswith("MemorylessSearchPolicy")
    for s in success.values():
        assert s["lo"] <= s["value"] <= s["hi"] and s["n"] == 2
    assert success["blind"]["lo"] < 0.5 < success["blind"]["hi"]  # two tests: a wide interval
    # text memory over subtask captions is the hierarchical agent here, and it remembers
    assert sm["text-memory"]["status"] == "ok"
    assert sm["text-memory"]["metrics"]["memory_success"]["value"] == 1.0
    assert sm["recency"]["status"] == "skipped"  # a frame-selection agent cannot act


@pytest.mark.slow
def test_findingdory_table_has_intervals_and_n(compared):
    _, comparison, _, sent = compared
    fd = by_agent(comparison["benchmarks"]["findingdory"])
    assert fd["do-nothing"]["status"] == "skipped"
    for name in ("oracle", "blind", "random", "recency", "text-memory"):
        assert fd[name]["status"] == "ok", fd[name]
        hl = fd[name]["metrics"]["hl_sr"]
        assert hl["n"] == 12 and hl["lo"] <= hl["value"] <= hl["hi"]
    values = {k: v["metrics"]["hl_sr"]["value"] for k, v in fd.items() if v["status"] == "ok"}
    assert values["oracle"] >= max(values.values()) and values["oracle"] > 0.5
    # the text-memory agent answered over privileged captions of the real annotations
    assert sent and any("picks up the mug" in t for t in sent)


@pytest.mark.slow
def test_outputs_png_and_html(compared):
    out, comparison, _, _ = compared
    for bench in ("scenemem", "findingdory"):
        with Image.open(out / f"{bench}_comparison.png") as img:
            assert img.format == "PNG" and img.size[0] > 300
    page = (out / "report.html").read_text()
    # one agent table per benchmark, then the viewer's breakdowns and paired tests
    assert page.count("<table") > 2 and "FindingDory" in page and "SceneMem" in page
    assert "McNemar" in page and "viewer/index.html" in page
    images = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert len(images) == 2
    assert Image.open(io.BytesIO(base64.b64decode(images[0]))).format == "PNG"
    # what each name ran as is stated (names mean different agents per benchmark)
    assert "blind = recallbench.agents.scenemem_baselines:MemorylessSearchPolicy" in page
    assert "blind = recallbench.agents.baselines:BlindAgent" in page
    assert "skipped" in page  # what did not run is said, not hidden
    for bench, block in comparison["benchmarks"].items():
        run_dirs = [a["run_dir"] for a in block["agents"] if a["status"] == "ok"]
        assert all((out / d).is_dir() and not Path(d).is_absolute() for d in run_dirs), bench


@pytest.mark.slow
def test_rerun_resumes_without_running_agents_again(compared):
    out, first, args, _ = compared
    logs = [*out.glob("scenemem/*/run/runlog.jsonl"), *out.glob("findingdory/*/runlog.jsonl")]
    before = {p: p.read_text() for p in logs}
    # text-memory's server is gone: a rerun must not need it (its records are complete)
    assert main(args) == 0
    assert {p: p.read_text() for p in logs} == before
    second = json.loads((out / "comparison.json").read_text())
    for bench in ("scenemem", "findingdory"):
        a = {x["agent"]: x["metrics"] for x in first["benchmarks"][bench]["agents"]}
        b = {x["agent"]: x["metrics"] for x in second["benchmarks"][bench]["agents"]}
        assert a == b


def test_bad_input_is_named(tmp_path, capsys):
    with pytest.raises(InputError, match="no SceneMem scenarios"):
        detect_suites(tmp_path)
    with pytest.raises(InputError, match="suite not found"):
        detect_suites(tmp_path / "nope")
    assert main(["run", "--suite", str(tmp_path), "--agents", "oracle", "--out",
                 str(tmp_path / "o")]) == 2
    assert str(tmp_path) in capsys.readouterr().err
    with pytest.raises(ValueError, match="AGENT.KEY=VALUE"):
        parse_agent_args(["model=x"])
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_agent_args(["vlm.model"])
    assert parse_agent_args(["vlm.max_tokens=5", "vlm.model=m"]) == {
        "vlm": {"max_tokens": 5, "model": "m"}}


def test_agent_names_map_per_benchmark():
    assert meaning("oracle", "scenemem").endswith("HierarchicalPrivileged")
    assert meaning("privileged", "scenemem").endswith("HierarchicalPrivileged")
    assert meaning("do-nothing", "scenemem").endswith("DoNothingPolicy")
    assert meaning("recency", "scenemem") is None
    assert meaning("scenemem-search", "scenemem").endswith("MemorylessSearchPolicy")
    assert meaning("do-nothing", "findingdory") is None
    assert resolve("oracle", "findingdory").__name__ == "OracleAgent"
    assert meaning("greedy", "navigation").endswith("GreedyFramePolicy")
    with pytest.raises(ValueError, match="unknown agent"):
        resolve("no-such-agent", "findingdory")


def test_every_listed_name_runs_where_it_says():
    """A name means one thing in every command: each role `list agents` shows loads a class
    with that role's methods (the old tables listed `scenemem-search`, which `scenemem
    --policy` could not run)."""
    from recallbench.agents.registry import ROLES

    for name, info in list_agents().items():
        assert info["targets"], name
        for role in info["targets"]:
            cls = resolve(name, role)
            assert all(callable(getattr(cls, m, None)) for m in ROLES[role]), (name, role)


@pytest.fixture()
def small_demo(monkeypatch):
    """The demo at a smaller size (same code path: generation in worker processes, the
    comparison, the report)."""
    from recallbench.cli import demo

    monkeypatch.setattr(demo, "DEMO_SCENEMEM_SCENARIOS", 1)
    monkeypatch.setitem(demo.DEMO_SCENEMEM_KNOBS, "tasks", 2)
    monkeypatch.setitem(demo.DEMO_SCENEMEM_KNOBS, "pick_place", 1)
    monkeypatch.setattr(demo, "DEMO_FINDINGDORY_EPISODES", 1)
    monkeypatch.setattr(demo, "DEMO_FINDINGDORY_KNOBS", {
        "interactions": 2, "interactions_spread": 0, "steps": 1600, "width": 120,
        "height": 160, "subsample": 24, "distractors": 4})
    monkeypatch.setattr(demo, "DEMO_FRAMES", 24)
    # the embedding model is tested elsewhere: here the demo must say it leaves text-memory out
    monkeypatch.setattr("recallbench.agents.embeddings.embeddings_available", lambda: False)
    return demo


@pytest.mark.slow
def test_demo_generates_once_and_compares(small_demo, tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--workers", "2"]) == 0
    report = out / "comparison" / "report.html"
    captured = capsys.readouterr()
    assert f"report: {report}" in captured.out
    assert "text-memory is left out" in captured.err
    comparison = json.loads((out / "comparison" / "comparison.json").read_text())
    sm = by_agent(comparison["benchmarks"]["scenemem"])
    assert sm["oracle"]["metrics"]["memory_success"]["value"] == 1.0
    assert sm["do-nothing"]["metrics"]["memory_success"]["value"] == 0.0
    fd = by_agent(comparison["benchmarks"]["findingdory"])
    assert fd["oracle"]["status"] == "ok" and fd["oracle"]["n"] > 0
    suite_files = sorted(p for p in (out / "suites").rglob("*") if p.is_file())
    stamps = {p: p.stat().st_mtime_ns for p in suite_files}
    assert main(["demo", "--out", str(out), "--workers", "2"]) == 0
    assert {p: p.stat().st_mtime_ns for p in suite_files} == stamps  # nothing regenerated
    # a suite made by other settings (an older recallbench) is remade, and its runs redone
    # instead of refusing the demo's own folder (finding 2 of the first-contact issue)
    small_demo.DEMO_FINDINGDORY_KNOBS["distractors"] = 3
    assert main(["demo", "--out", str(out), "--workers", "2"]) == 0
    assert "remaking it" in capsys.readouterr().err
    suite_json = json.loads((out / "suites" / "findingdory" / "suite.json").read_text())
    assert suite_json["knobs"]["distractors"] == 3


def test_suites_are_detected_from_their_files(suite):
    assert detect_suites(suite) == {"scenemem": suite / "scenemem",
                                    "findingdory": suite / "findingdory"}
    assert detect_suites(suite / "scenemem") == {"scenemem": suite / "scenemem"}
    assert detect_suites(suite / "findingdory") == {"findingdory": suite / "findingdory"}
    qa = suite / "findingdory" / "qa.json"
    assert detect_suites(qa) == {"findingdory": qa}


def test_an_agent_with_no_loadable_scenario_fails_instead_of_scoring_zero(tmp_path):
    data = tmp_path / "suite"
    (data / "combo_0901_L0_S0_0").mkdir(parents=True)
    (data / "combo_0901_L0_S0_0" / "eval_spec.json").write_text("{not json")
    out = tmp_path / "run"
    main(["run", "--suite", str(data), "--agents", "oracle", "--out", str(out), "--workers", "1"])
    block = json.loads((out / "comparison.json").read_text())["benchmarks"]["scenemem"]
    (oracle,) = block["agents"]
    assert oracle["status"] == "failed" and "no case ran" in oracle["note"]
    assert oracle["n"] == 0 and not oracle["metrics"]
