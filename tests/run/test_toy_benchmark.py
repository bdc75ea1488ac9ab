"""Issue 24: a third benchmark is one package plus one registration. ToyBench
(``tests/support/toybench``: "which of N frames shows the red object") is registered only
through the entry-point groups, by a ``dist-info`` folder on PYTHONPATH, and runs through
`recallbench run` (its options derived as --toybench-*), `score`, `merge`, `view` and `audit`
with no edit to recallbench for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fault_support import cli, error_lines
from support.toybench.suite import write_suite

TOY = Path(__file__).resolve().parents[1] / "support" / "toybench"
ENTRY_POINTS = """\
[recallbench.benchmarks]
toybench = toybench.seam:BENCHMARK

[recallbench.agents]
toy-oracle = toybench.agents:ToyOracle
toy-random = toybench.agents:ToyRandom
"""
N = 12


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """(environment registering ToyBench, its suite)."""
    root = tmp_path_factory.mktemp("toy")
    site = root / "site"
    site.mkdir()
    (site / "toybench").symlink_to(TOY)
    dist = site / "toybench-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    return {"PYTHONPATH": str(site)}, write_suite(root / "suite", N)


def _summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


@pytest.mark.slow
def test_toy_runs_through_run_score_and_merge(toy, tmp_path):
    env, suite = toy
    out = tmp_path / "compared"
    done = cli("run", "--suite", str(suite), "--agents", "toy-oracle,toy-random",
               "--toybench-target", "green", "--workers", "2", "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    block = json.loads((out / "comparison.json").read_text())["benchmarks"]["toybench"]
    assert block["options"] == {"target": "green", "limit": None, "shard": None, "seed": 0}
    accuracy = {a["agent"]: a["metrics"]["accuracy"]["value"] for a in block["agents"]}
    assert accuracy["toy-oracle"] == 1.0 and accuracy["toy-random"] < 1.0
    assert all(a["n"] == N for a in block["agents"])

    oracle = out / "toybench" / "toy-oracle"
    done = cli("score", str(oracle), "--format", "json", env=env)  # re-scored from its records
    assert done.returncode == 0, done.stderr
    assert _summary(oracle)["overall"]["accuracy"]["value"] == 1.0

    shards = []
    for i in (1, 2):
        part = tmp_path / f"shard{i}"
        done = cli("run", "--suite", str(suite), "--agents", "toy-random", "--toybench-target",
                   "green", "--toybench-shard", f"{i}/2", "--out", str(part), env=env)
        assert done.returncode == 0, done.stderr
        shards.append(str(part / "toybench" / "toy-random"))
    merged = tmp_path / "merged"
    done = cli("merge", *shards, "--out", str(merged), env=env)
    assert done.returncode == 0, done.stderr
    alone = out / "toybench" / "toy-random"
    keys = [json.loads(line)["key"] for line in (merged / "runlog.jsonl").read_text().splitlines()]
    assert keys == sorted(json.loads(line)["key"]
                          for line in (alone / "runlog.jsonl").read_text().splitlines())
    assert _summary(merged)["overall"]["accuracy"] == _summary(alone)["overall"]["accuracy"]

    # the viewer: its case pages come from the declaration's case_reader, no warning
    done = cli("view", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr.lower() and "Traceback" not in done.stderr
    overview = _viewer_data(out / "viewer" / "data" / "overview.js")["overview"]
    assert overview["warnings"] == []
    toy_block = overview["benchmarks"]["toybench"]
    assert toy_block["title"] == "ToyBench" and toy_block["page"] == "frames"
    assert toy_block["agents"]["toy-oracle"]["metrics"]["accuracy"]["value"] == 1.0
    assert set(toy_block["breakdowns"]["category"]) == {"green"}
    assert overview["benchmarks"]["toybench"]["facts"] == {"cases": N, "colour asked": "green"}
    cases = [c for f in sorted((out / "viewer" / "data").glob("cases-*.js"))
             for c in next(iter(_viewer_data(f).values()))]
    assert len(cases) == 2 * N and {c["bench"] for c in cases} == {"toybench"}
    oracle_cases = [c for c in cases if c["agent"] == "toy-oracle"]
    assert all(c["success"] and c["detail"]["chosen"] == c["detail"]["valid_positions"]
               for c in oracle_cases)
    case = json.loads((suite / "toybench.json").read_text())["cases"][0]
    first = next(c for c in oracle_cases if c["id"] == case["id"])
    assert first["detail"]["frames"] == case["frames"]
    assert first["detail"]["valid_positions"] == [case["frames"].index("green")]


def _viewer_data(path: Path) -> dict:
    """A viewer data file, ``RB.put(name, value);``, as {name: value}."""
    text = path.read_text().strip()
    assert text.startswith("RB.put(") and text.endswith(");")
    name, _, body = text[len("RB.put("):-2].partition(",")
    return {json.loads(name): json.loads(body)}


def test_toy_suite_is_audited(toy, tmp_path):
    env, suite = toy
    done = cli("audit", str(suite), "--out", str(tmp_path / "fair"), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "fair" / "audit.json").read_text())
    assert report["benchmark"] == "toybench" and report["n"] == N and report["passed"]
    assert set(report["agents"]) == {"toy-random", "toy-first"}
    assert (tmp_path / "fair" / "audit.png").stat().st_size > 0

    # a shortcut: red is always the first frame, so always-the-first finds it without looking
    shortcut = write_suite(tmp_path / "shortcut", N)
    data = json.loads((shortcut / "toybench.json").read_text())
    for case in data["cases"]:
        frames = case["frames"]
        i = frames.index("red")
        frames[0], frames[i] = frames[i], frames[0]
    (shortcut / "toybench.json").write_text(json.dumps(data))
    done = cli("audit", str(shortcut), "--out", str(tmp_path / "unfair"), env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads((tmp_path / "unfair" / "audit.json").read_text())
    assert [c["name"] for c in report["checks"] if not c["passed"]] == ["toy-first on red"]


def test_toy_options_are_checked_and_exist_only_when_registered(toy, tmp_path):
    env, suite = toy
    done = cli("run", "--suite", str(suite), "--agents", "toy-oracle", "--toybench-target",
               "purple", "--out", str(tmp_path / "x"), env=env)
    assert done.returncode == 2 and len(error_lines(done.stderr)) == 1
    assert "--toybench-target" in done.stderr and not (tmp_path / "x").exists()
    done = cli("run", "--suite", str(suite), "--agents", "toy-oracle", "--toybench-target",
               "green", "--out", str(tmp_path / "y"))  # not registered: no such flag
    assert done.returncode == 2 and "--toybench-target" in done.stderr
