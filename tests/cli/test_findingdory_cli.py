"""FindingDory CLIs end to end: a generated-format suite with real mp4 videos and per-frame
annotations, agents run by name, resume, re-scoring and scoring predictions made elsewhere."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from recallbench.cli import main
from support.findingdory_suite import build_suite
from support.shared_data import FINDINGDORY_VAL_QA

VAL = FINDINGDORY_VAL_QA

PIXEL_AGENT = textwrap.dedent(
    """
    import numpy as np
    from recallbench.benchmarks.findingdory.protocol import FrameAnswer

    class GreenSeeker:
        '''Looks at the decoded, stamped frames and picks the greenest one (the mug).'''
        name = "green"
        privileged = False

        def select_frames(self, query, frames):
            images = frames.frames()
            assert len(images) == len(query.offered_frames)
            green = [float((img[28:56, 18:46, 1] > 200).mean()) for img in images]
            best = int(np.argmax(green))
            return FrameAnswer(response='{"frame_indices": %s}' % ([best] * query.num_targets))
    """
)


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_suite(tmp_path_factory.mktemp("fd_suite"))


def run(*args: str) -> int:
    return main(["findingdory", *args])


def summary_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def test_oracle_on_generated_suite_all_hl_metrics(suite_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    assert (
        run("--data", str(suite_dir), "--agent", "oracle", "--frames", "24", "--out", str(out)) == 0
    )
    s = summary_of(out)["overall"]
    assert s["hl_sr"]["value"] == pytest.approx(10 / 12)  # only "a room you did not visit" fails
    assert s["dtg_sr"]["value"] == pytest.approx(10 / 12)
    assert s["sc_sr"]["value"] == pytest.approx(10 / 12)
    assert s["hl_spl"]["n"] == 8 and s["hl_spl"]["value"] == pytest.approx(6 / 8)
    assert s["ll_sr"]["value"] is None and "rollout" in s["ll_sr"]["na_reason"]
    for m in ("hl_sr", "dtg_sr", "sc_sr", "hl_spl"):
        assert s[m]["lo"] <= s[m]["value"] <= s[m]["hi"]
    records = [json.loads(x) for x in (out / "runlog.jsonl").read_text().splitlines()]
    assert all(len(r["offered_frames"]) == 24 for r in records)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["frames"] == 24 and manifest["agent"] == "oracle"
    assert len(manifest["data_sha256"]) == 64 and manifest["scoring"] == "published"


def test_pixel_agent_reads_the_real_video(suite_dir: Path, tmp_path: Path) -> None:
    agent_file = tmp_path / "green.py"
    agent_file.write_text(PIXEL_AGENT)
    out = tmp_path / "green"
    spec = f"{agent_file}:GreenSeeker"
    assert run("--data", str(suite_dir), "--agent", spec, "--frames", "24", "--out", str(out)) == 0
    by_id = {}
    for line in (out / "runlog.jsonl").read_text().splitlines():
        r = json.loads(line)
        by_id[r["key"]] = r
    s = summary_of(out)
    # the greenest frame answers "a mug" and "the room where you picked the mug" correctly
    assert s["overall"]["hl_sr"]["value"] == pytest.approx(4 / 12)
    assert s["by_category"]["Object Recall"]["hl_sr"]["value"] == 1.0
    assert by_id["ep_b-0"]["response"].startswith('{"frame_indices"')
    # frame 51 is the first offered frame showing the mug in ep_b (shifted by 10)
    assert by_id["ep_b-0"]["offered_frames"][json.loads(by_id["ep_b-0"]["response"])[
        "frame_indices"][0]] == 51  # fmt: skip


@pytest.mark.slow
def test_resume_gives_identical_records(suite_dir: Path, tmp_path: Path) -> None:
    full, part = tmp_path / "full", tmp_path / "part"
    base = ["--data", str(suite_dir), "--agent", "random", "--frames", "24", "--seed", "3"]
    assert run(*base, "--out", str(full)) == 0
    assert run(*base, "--out", str(part), "--limit", "5") == 0
    assert run(*base, "--out", str(part)) == 2  # records exist and no --resume: refuse
    assert run(*base, "--out", str(part), "--resume") == 0

    def answers(d: Path) -> dict:
        rows = [json.loads(x) for x in (d / "runlog.jsonl").read_text().splitlines()]
        return {r["key"]: r["frame_indices"] for r in rows}

    assert answers(part) == answers(full) and len(answers(full)) == 12
    assert run(*base[:-1], "4", "--out", str(part), "--resume") == 2  # different seed: refuse


def test_recency_with_privileged_events(suite_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "recency"
    args = ["--data", str(suite_dir), "--agent", "recency", "--frames", "24", "--out", str(out)]
    assert run(*args, "--agent-arg", "use_events=true") == 0
    rows = [json.loads(x) for x in (out / "runlog.jsonl").read_text().splitlines()]
    first = next(r for r in rows if r["key"] == "ep_a-0")
    # last interaction = the place on the sofa, frames 150..169: the middle offered frame there
    assert 150 <= first["offered_frames"][first["frame_indices"][0]] <= 169


def test_score_run_rescoring_and_report(suite_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "o"
    assert (
        run("--data", str(suite_dir), "--agent", "oracle", "--frames", "24", "--out", str(out)) == 0
    )
    before = summary_of(out)
    lines = (out / "runlog.jsonl").read_text().splitlines()
    # damage one answer in the log: re-scoring must see it without re-running the agent
    rec = json.loads(lines[0])
    rec["frame_indices"] = None
    rec["response"] = "I cannot tell"
    (out / "runlog.jsonl").write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n")
    assert main(["score", str(out)]) == 0
    after = summary_of(out)
    assert after["overall"]["failures"].get("response_error") == 1
    assert after["overall"]["hl_sr"]["value"] < before["overall"]["hl_sr"]["value"]
    assert main(["score", str(out), "--official"]) == 0
    official = summary_of(out)
    assert (
        official["scoring"] == "official"
        and "response_error" not in official["overall"]["failures"]
    )
    capsys.readouterr()
    assert main(["report", str(out), "--by-template"]) == 0
    assert "By template" in capsys.readouterr().out
    assert main(["score", str(tmp_path / "nothing")]) == 2


@pytest.mark.slow
def test_frames_sweep(suite_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    args = [
        "--data",
        str(suite_dir),
        "--agent",
        "oracle",
        "--frames-sweep",
        "8,24",
        "--out",
        str(out),
    ]
    assert run(*args) == 0
    s8, s24 = summary_of(out / "K8"), summary_of(out / "K24")
    assert s8["frames"] == 8 and s24["frames"] == 24
    # with 8 frames of 200 some 20-frame windows are missed: the oracle cannot do better
    assert s8["overall"]["hl_sr"]["value"] <= s24["overall"]["hl_sr"]["value"]


@pytest.mark.slow
@pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")
def test_score_predictions_made_elsewhere(tmp_path: Path, capsys) -> None:
    rows = [r for r in json.loads(VAL.read_text()) if len(r["answer"]) == 1][:4]
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "\n".join(
            [
                json.dumps({"id": rows[0]["id"], "frame_indices": [rows[0]["answer"][0][0]]}),
                json.dumps(
                    {
                        "id": rows[1]["id"],
                        "response": "```json\n"
                        + json.dumps({"frame_indices": [rows[1]["answer"][0][0]]})
                        + "\n```",
                    }
                ),
                json.dumps({"id": rows[2]["id"], "response": "no idea"}),
                json.dumps({"id": rows[3]["id"], "frame_indices": [500]}),
            ]
        )  # fmt: skip
    )
    summary = tmp_path / "summary.json"
    code = main(["findingdory", "score", "--data", str(VAL), "--predictions", str(preds),
                 "--out", str(summary), "--subset"])  # fmt: skip
    assert code == 0
    s = json.loads(summary.read_text())
    assert s["cases_recorded"] == 4 and s["overall"]["hl_sr"]["value"] == 0.5
    assert s["overall"]["failures"] == {"response_error": 1, "out_of_bounds_pred": 1}
    assert "5872 of 5876 cases have no prediction: not scored" in capsys.readouterr().err
    # Without --subset every case is scored, a missing prediction as a failure (finding 8).
    code = main(["findingdory", "score", "--data", str(VAL), "--predictions", str(preds),
                 "--out", str(summary)])  # fmt: skip
    assert code == 0
    s = json.loads(summary.read_text())
    assert s["cases_scored"] == 5876 and s["missing"] == 5872
    assert s["overall"]["hl_sr"]["value"] == pytest.approx(2 / 5876)
    assert s["overall"]["failures"]["missing"] == 5872
    assert "counted as failures" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert main(["findingdory", "score", "--data", str(VAL), "--predictions", str(empty)]) == 2
    assert "no predictions in the file" in " ".join(capsys.readouterr().err.split())
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 0, "frame_indices": [1]}\n{"frame_indices": [2]}\n')
    assert main(["findingdory", "score", "--data", str(VAL), "--predictions", str(bad)]) == 2
    assert "line 2: id" in capsys.readouterr().err
    k48 = tmp_path / "k48.jsonl"
    k48.write_text(json.dumps({"id": 0, "frame_indices": [1], "offered_frames": list(range(48))}))
    assert main(["findingdory", "score", "--data", str(VAL), "--predictions", str(k48)]) == 2
    assert "96-frame" in capsys.readouterr().err


@pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")
@pytest.mark.slow
def test_public_file_refuses_other_budgets(tmp_path: Path, capsys) -> None:
    code = run(
        "--data", str(VAL), "--agent", "random", "--frames", "48", "--out", str(tmp_path / "r")
    )
    assert code == 2
    assert "96-frame" in capsys.readouterr().err


@pytest.mark.slow
def test_all_six_metrics_from_recorded_ll_outcomes(suite_dir: Path, tmp_path: Path) -> None:
    # The LL rollout (built-in world) appends its outcome under "ll"; scoring needs nothing else.
    out = tmp_path / "ll"
    assert (
        run("--data", str(suite_dir), "--agent", "oracle", "--frames", "24", "--out", str(out)) == 0
    )
    rows = [json.loads(x) for x in (out / "runlog.jsonl").read_text().splitlines()]
    for n, r in enumerate(rows):
        ok = n % 2 == 0
        r["ll"] = {"success": ok, "path_length": 8.0, "steps": 60, "stopped": True,
                   "target_in_view": ok, "stop_distance": 0.0 if ok else 3.0}  # fmt: skip
    (out / "runlog.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["score", str(out)]) == 0
    s = summary_of(out)["overall"]
    for m in ("hl_sr", "dtg_sr", "sc_sr", "hl_spl", "ll_sr", "ll_spl"):
        assert s[m]["value"] is not None and s[m]["lo"] <= s[m]["value"] <= s[m]["hi"], m
    assert s["ll_sr"]["value"] == 0.5 and s["ll_sr"]["n"] == 12
    assert s["ll_failures"] == {"tgt_not_in_view_too_far": 6}
    # LL-SPL of "Navigate to a mug" (L* = 4 m to the mug, 8 m walked) in both episodes: 0.5
    by_id = {r["key"]: r for r in rows}
    assert by_id["ep_a-0"]["ll"]["success"] and by_id["ep_b-0"]["ll"]["success"]
    mug = summary_of(out)["by_category"]["Object Recall"]["ll_spl"]
    assert mug["n"] == 2 and mug["value"] == pytest.approx(0.5)
    # a failed rollout scores 0: the ordered revisits (rows 3 and 9) failed in both episodes
    ordered = summary_of(out)["by_category"]["Ordered Revisitation"]["ll_spl"]
    assert ordered["value"] == 0.0 and ordered["n"] == 2


FAULTY_AGENT = textwrap.dedent(
    """
    from recallbench.benchmarks.findingdory.protocol import FrameAnswer

    class Faulty:
        name = "faulty"
        privileged = False

        def select_frames(self, query, frames):
            kind = int(query.case_id.split("-")[1])
            if kind == 0:
                raise RuntimeError("model server down")
            if kind == 1:
                return FrameAnswer(frame_indices=[float("nan")])
            if kind == 2:
                return [3]  # not a FrameAnswer
            if kind == 3:
                return FrameAnswer(frame_indices=[0], info={"logprob": float("nan")})
            return FrameAnswer(frame_indices=[0] * (query.num_targets or 1))
    """
)


@pytest.mark.slow
def test_faulty_agent_fails_cases_not_the_run(suite_dir: Path, tmp_path: Path) -> None:
    agent_file = tmp_path / "faulty.py"
    agent_file.write_text(FAULTY_AGENT)
    out = tmp_path / "faulty"
    spec = f"{agent_file}:Faulty"
    assert run("--data", str(suite_dir), "--agent", spec, "--frames", "24", "--out", str(out)) == 0
    by_id = {r["key"]: r for r in map(json.loads, (out / "runlog.jsonl").read_text().splitlines())}
    assert len(by_id) == 12
    assert "model server down" in by_id["ep_a-0"]["agent_error"]
    assert by_id["ep_a-1"]["frame_indices"] is None and "nan" in by_id["ep_a-1"]["response"]
    assert "FrameAnswer" in by_id["ep_a-2"]["agent_error"]
    assert "nan" in by_id["ep_a-3"]["info"]["unloggable_info"]
    failures = summary_of(out)["overall"]["failures"]
    assert failures["response_error"] == 6  # kinds 0, 1, 2 in both episodes


@pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")
@pytest.mark.slow
def test_rescoring_a_run_counts_unrecorded_cases_as_missing(tmp_path: Path, capsys) -> None:
    """Finding 8 for `recallbench score RUN`: a planned case without a record (an interrupted
    run) fails and is reported as missing; --subset scores the recorded ones only."""
    out = tmp_path / "r"
    assert run("--data", str(VAL), "--agent", "oracle", "--out", str(out), "--limit", "6") == 0
    log = out / "runlog.jsonl"
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:3]))
    capsys.readouterr()
    assert main(["score", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert (s["cases_scored"], s["cases_recorded"], s["missing"]) == (6, 3, 3)
    assert s["overall"]["failures"]["missing"] == 3
    assert "3 of 6 planned cases recorded, 3 missing (counted as failures" in \
        capsys.readouterr().err
    assert main(["score", str(out), "--subset"]) == 0
    assert "3 missing (left out below (--subset))" in capsys.readouterr().err
    s = json.loads((out / "summary.json").read_text())
    assert (s["cases_scored"], s["missing"], s["overall"]["hl_sr"]["n"]) == (3, 0, 3)


def test_format_json_stdout_is_json_alone(tmp_path: Path) -> None:
    """``--format json`` leaves stdout to the rows: the progress bar goes to stderr (it used to
    print on stdout before the JSON, so ``| jq`` failed)."""
    import subprocess
    import sys

    recallbench = str(Path(sys.executable).with_name("recallbench"))
    proc = subprocess.run([recallbench, "findingdory", "--data", str(VAL), "--agent", "random",
                           "--limit", "40", "--out", str(tmp_path / "run"), "--format", "json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert {r["metric"] for r in rows} >= {"hl_sr"} and rows[0]["n"] == 40
    assert "random K=" in proc.stderr  # the bar is still shown, where a person looks
