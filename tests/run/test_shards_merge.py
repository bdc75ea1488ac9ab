"""`--shard i/N` and `recallbench merge`: shards of a real run join into the unsharded run's
folder, byte for byte; merges that would mix runs are refused with one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recallbench.executor.threads import worker_threads
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy
from support.shared_data import FINDINGDORY_VAL_QA

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
FD_CASES = "30"  # real validation questions; the seeded random agent needs no videos


def cli(*args: str, check: int | None = 0) -> subprocess.CompletedProcess:
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    proc = subprocess.run([RECALLBENCH, *args], env=env, capture_output=True, text=True,
                          timeout=300)
    if check is not None:
        assert proc.returncode == check, proc.stderr
    return proc


def findingdory(out: Path, *extra: str, check: int | None = 0) -> subprocess.CompletedProcess:
    return cli("findingdory", "--data", str(FINDINGDORY_VAL_QA), "--agent", "random",
               "--limit", FD_CASES, "--out", str(out), *extra, check=check)


def keys(run_dir: Path) -> set[str]:
    return {json.loads(line)["key"] for line in (run_dir / "runlog.jsonl").read_text().splitlines()}


def one_line_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def fd_runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("fd_shards")
    runs = {"full": root / "full"}
    findingdory(runs["full"])
    for i in (1, 2, 3):
        runs[f"{i}/3"] = root / f"shard{i}"
        findingdory(runs[f"{i}/3"], "--shard", f"{i}/3")
    return runs


@pytest.mark.slow
def test_findingdory_shards_partition_the_cases_and_merge_to_the_unsharded_run(fd_runs, tmp_path):
    parts = [keys(fd_runs[f"{i}/3"]) for i in (1, 2, 3)]
    assert all(parts), "a shard ran nothing: the test would prove little"
    assert sum(map(len, parts)) == len(set().union(*parts)) == int(FD_CASES)
    assert set().union(*parts) == keys(fd_runs["full"])
    manifest = json.loads((fd_runs["2/3"] / "manifest.json").read_text())
    assert manifest["shard"] == "2/3" and manifest["cases"] == len(parts[1])
    assert manifest["executor"] == {"kind": "local", "workers": 1, "address": None,
        "threads": worker_threads()}  # as the run was started
    merged = tmp_path / "merged"
    # given in any order
    cli("merge", str(fd_runs["3/3"]), str(fd_runs["1/3"]), str(fd_runs["2/3"]),
        "--out", str(merged))
    assert (merged / "summary.json").read_bytes() == (fd_runs["full"] / "summary.json").read_bytes()
    merged_manifest = json.loads((merged / "manifest.json").read_text())
    assert "shard" not in merged_manifest and merged_manifest["cases"] == int(FD_CASES)
    assert sorted(m["shard"] for m in merged_manifest["merged_from"]) == ["1/3", "2/3", "3/3"]


@pytest.mark.slow
def test_a_shard_resumes_only_as_the_same_shard(fd_runs):
    proc = findingdory(fd_runs["1/3"], "--resume", "--shard", "2/3", check=None)
    one_line_error(proc, "shard", "1/3", "2/3")
    findingdory(fd_runs["1/3"], "--resume", "--shard", "1/3")  # nothing left: still fine


@pytest.mark.slow
def test_merge_refuses_missing_duplicate_foreign_and_differing_shards(fd_runs, tmp_path):
    s1, s2, s3 = (str(fd_runs[f"{i}/3"]) for i in (1, 2, 3))
    one_line_error(cli("merge", s1, s3, "--out", str(tmp_path / "a"), check=None),
                   "2/3", "missing")
    one_line_error(cli("merge", s1, s1, s2, s3, "--out", str(tmp_path / "b"), check=None),
                   "both shard 1/3")
    one_line_error(cli("merge", s1, s2, s3, str(fd_runs["full"]), "--out", str(tmp_path / "c"),
                       check=None), "not a shard")
    other_seed = tmp_path / "seed1"
    findingdory(other_seed, "--shard", "2/3", "--seed", "1")
    one_line_error(cli("merge", s1, str(other_seed), s3, "--out", str(tmp_path / "d"),
                       check=None), "seed", "differs")
    halves = tmp_path / "half"
    findingdory(halves, "--shard", "1/2")
    one_line_error(cli("merge", s1, s2, s3, str(halves), "--out", str(tmp_path / "e"),
                       check=None), "1/2", "3 shards")
    assert not any((tmp_path / n).exists() for n in "abcde"), "a refused merge wrote files"


@pytest.mark.parametrize("bad", ["0/2", "3/2", "2", "a/b", "1/0"])
def test_bad_shard_is_one_line_before_work(bad, tmp_path):
    one_line_error(findingdory(tmp_path / "x", "--shard", bad, check=None), "--shard")
    assert not (tmp_path / "x").exists()


def scenemem(data: Path, out: Path, *extra: str) -> None:
    cli("scenemem", "--data_dir", str(data), "--policy", policy("RandomWalk"), "--out",
        str(out), "--max_steps", "40", "--workers", "2", "--env_factory", MINI_FACTORY, *extra)


@pytest.mark.slow
def test_scenemem_shards_merge_to_the_unsharded_results_and_summary(tmp_path):
    data = tmp_path / "data"
    for n in range(4):
        tests = [mini_test(f"t{i}", f"obj{i}", "cabinet" if i % 2 else "drawer")
                 for i in range(2)]
        mini_scenario(data / f"combo_00{n}_L1_S1_000{n}", tests)
    scenemem(data, tmp_path / "full.json")
    shards = []
    for i in (1, 2):
        scenemem(data, tmp_path / f"s{i}.json", "--shard", f"{i}/2")
        shards.append(tmp_path / f"s{i}_run")
    ran = [json.loads((s / "manifest.json").read_text())["scenarios"] for s in shards]
    assert all(ran) and sorted(ran[0] + ran[1]) == sorted(p.name for p in data.iterdir())
    merged = tmp_path / "merged"
    cli("merge", *map(str, shards), "--out", str(merged))
    assert (merged / "results.json").read_bytes() == (tmp_path / "full.json").read_bytes()
    assert (merged / "summary.json").read_bytes() == \
        (tmp_path / "full_run" / "summary.json").read_bytes()
    # a scenario added since the shards ran: their suite is no longer this one
    mini_scenario(data / "combo_009_L1_S1_0009", [mini_test("t0", "obj0")])
    proc = cli("merge", *map(str, shards), "--out", str(tmp_path / "late"), check=None)
    one_line_error(proc, "scenarios", "suite changed")
