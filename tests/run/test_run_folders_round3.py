"""Run folders, round three (issue 35): an answer of thousands of frame indices fails its case at
recording; `findingdory --overwrite` empties the folder as every command's --overwrite does;
`merge` refuses a link planted in --out before writing and type-checks a SceneMem shard's tests.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support.fault_support import cli, error_lines, records, squash
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy

FLOOD = """
from recallbench.benchmarks.findingdory.protocol import FrameAnswer


class Flood:
    name = "flood"
    privileged = False

    def select_frames(self, query, frames):
        return FrameAnswer(frame_indices=[0] * 5000)  # far past any case's goals
"""


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    from support.findingdory_suite import build_suite

    return build_suite(tmp_path_factory.mktemp("round3") / "suite")


def _fd(suite: Path, out: Path, *extra: str) -> int:
    from recallbench.cli import main

    return main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(out), *extra])


def test_an_answer_of_thousands_of_indices_is_a_failed_case_with_the_reason(suite, tmp_path):
    from recallbench.cli import main

    (tmp_path / "flood.py").write_text(FLOOD)
    run = tmp_path / "run"
    code = main(["findingdory", "--data", str(suite), "--agent", f"{tmp_path / 'flood.py'}:Flood",
                 "--frames", "8", "--limit", "1", "--out", str(run)])
    assert code == 1  # nothing it was asked to do succeeded
    for record in records(run):
        assert record["frame_indices"] is None, len(record["frame_indices"] or [])
        assert "5000 frame indices, more than the 1000" in record["agent_error"]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["no_answer"] == 1


def test_findingdory_overwrite_empties_the_run_folder_like_every_overwrite(suite, tmp_path, capsys):
    from recallbench.cli import main

    run = tmp_path / "run"
    assert _fd(suite, run, "--limit", "2") == 0
    assert main(["view", str(run)]) == 0 and (run / "viewer" / "index.html").is_file()
    (run / "stale.txt").write_text("from the run before\n")
    assert _fd(suite, run, "--limit", "1", "--overwrite") == 0
    left = sorted(p.name for p in run.iterdir())
    assert "viewer" not in left and "stale.txt" not in left, left  # the old run's views too
    assert len(records(run)) == 1


def test_findingdory_overwrite_refuses_a_symlinked_run_folder(suite, tmp_path, capsys):
    real = tmp_path / "real"
    assert _fd(suite, real, "--limit", "1") == 0
    link = tmp_path / "link"
    link.symlink_to(real)
    capsys.readouterr()
    assert _fd(suite, link, "--limit", "1", "--overwrite") == 2
    out = squash("".join(capsys.readouterr()))
    assert "isnotarunfolder(asymlinkorafile)" in out and (real / "runlog.jsonl").is_file()


def test_merge_refuses_a_link_planted_in_out_before_writing_anything(suite, tmp_path, capsys):
    from recallbench.cli import main

    shards = [tmp_path / f"s{i}" for i in (1, 2)]
    for i, shard in enumerate(shards, 1):
        assert _fd(suite, shard, "--shard", f"{i}/2") == 0
    victim = tmp_path / "victim.json"
    victim.write_text('{"keep": true}\n')
    out = tmp_path / "merged"
    out.mkdir()
    (out / "summary.json").symlink_to(victim)
    capsys.readouterr()
    assert main(["merge", *map(str, shards), "--out", str(out)]) == 2
    text = "".join(capsys.readouterr())
    errors = [line for line in text.splitlines() if ": error: " in line]
    assert len(errors) == 1 and squash(f"{out / 'summary.json'}:isasymboliclink") in squash(
        errors[0]), text
    assert victim.read_text() == '{"keep": true}\n'
    assert sorted(os.listdir(out)) == ["summary.json"]  # nothing written before the refusal


@pytest.mark.slow
def test_merge_type_checks_each_test_of_a_scenemem_shard(tmp_path):
    data = tmp_path / "data"
    for n in range(2):
        mini_scenario(data / f"combo_00{n}_L1_S1_000{n}", [mini_test("t0", "obj0")])
    shards = []
    for i in (1, 2):
        proc = cli("scenemem", "--data_dir", str(data), "--policy", policy("RandomWalk"),
                   "--out", str(tmp_path / f"s{i}.json"), "--max_steps", "20", "--workers", "1",
                   "--env_factory", MINI_FACTORY, "--shard", f"{i}/2")
        assert proc.returncode == 0, proc.stderr
        shards.append(tmp_path / f"s{i}_run")
    card_path = tmp_path / "s1.json"
    pristine = card_path.read_text()
    for n, (entry, field) in enumerate([
            ({"test_id": "t0", "memory": "yes"}, "results[0].tests[0].memory"),
            ({"test_id": 7, "memory": True}, "results[0].tests[0].test_id"),
            (["t0", True], "results[0].tests[0]")]):
        card = json.loads(pristine)
        card["results"][0]["tests"][0] = entry
        card_path.write_text(json.dumps(card))
        proc = cli("merge", *map(str, shards), "--out", str(tmp_path / f"merged{n}"))
        assert proc.returncode == 2 and "internal error" not in proc.stderr, proc.stderr
        lines = error_lines(proc.stderr)
        assert len(lines) == 1 and squash(f"{card_path}:{field}") in squash(lines[0]), lines
    card_path.write_text(pristine)  # the shards as they ran merge
    assert cli("merge", *map(str, shards), "--out", str(tmp_path / "merged")).returncode == 0
