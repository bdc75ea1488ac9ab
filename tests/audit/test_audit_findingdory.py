"""The FindingDory suite audit on the real public validation annotations (5,876 questions).

The audit of val must reproduce the published baselines; its shipped reference figures must be
exactly what the val file gives; suites built from val rows with a planted shortcut (answers
that the last frame satisfies, a skewed category mix, wider windows, a day whose room questions
share one answer) must fail, at any size; and val's own small subsets must pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recallbench.audit.findingdory import (
    REFERENCE_PATH,
    compute_reference,
    load_reference,
)
from recallbench.cli import main
from support.shared_data import FINDINGDORY_VAL_QA

VAL = FINDINGDORY_VAL_QA
pytestmark = pytest.mark.skipif(not VAL.is_file(), reason="public validation file not present")


@pytest.fixture(scope="module")
def val_rows() -> list[dict]:
    return json.loads(VAL.read_text())


@pytest.fixture(scope="module")
def val_audit(tmp_path_factory) -> tuple[int, dict, Path]:
    out = tmp_path_factory.mktemp("val_audit")
    status = main(["audit", str(VAL), "--out", str(out)])
    return status, json.loads((out / "audit.json").read_text()), out


@pytest.mark.slow
def test_shipped_reference_is_what_the_val_file_gives():
    shipped = load_reference()
    assert REFERENCE_PATH.is_file() and shipped["scoring"] == "published"
    assert shipped["seed"] == 0 and shipped["k"] == 96
    assert compute_reference(VAL) == shipped


@pytest.mark.slow
def test_audit_of_val_reproduces_the_published_figures(val_audit):
    status, report, out = val_audit
    assert status == 0
    assert report["benchmark"] == "findingdory" and report["n"] == 5876
    assert report["judged"] and report["passed"] and report["scoring"] == "published"
    rates = {name: a["overall"]["rate"] for name, a in report["agents"].items()}
    assert round(100 * rates["random"], 2) == 11.13
    assert round(100 * rates["blind"], 2) == 12.17
    assert round(100 * rates["recency"], 2) == 2.71
    assert round(100 * rates["oracle"], 2) == 95.22
    # the nominal clock barely helps on val: 7 of 200 Time-Based questions
    assert report["agents"]["time-prior"]["categories"]["Time-Based"]["rate"] == 7 / 200
    blind = report["agents"]["blind"]["overall"]
    assert blind["lo"] < blind["rate"] < blind["hi"] and blind["n"] == 5876
    assert report["unsolvable"] == pytest.approx(281 / 5876)
    assert report["categories"]["Interaction"]["width"] == pytest.approx(0.299, abs=5e-4)
    assert report["category_tv"] == 0.0
    assert all(c["passed"] for c in report["checks"])
    assert (out / "audit.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _write(tmp_path: Path, rows: list[dict], name: str) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(rows))
    return path


@pytest.mark.slow
def test_a_recency_shortcut_fails_the_audit(tmp_path, val_rows, capsys):
    # the last frame made valid for every goal: what a day ending beside its last object does
    leaky = [{**r, "answer": [sorted(set(s) - {-1} | {95}) for s in r["answer"]]}
             for r in val_rows]
    out = tmp_path / "leaky"
    assert main(["audit", str(_write(tmp_path, leaky, "leaky")), "--out", str(out)]) == 1
    report = json.loads((out / "audit.json").read_text())
    failed = {c["name"] for c in report["checks"] if not c["passed"]}
    assert "recency overall" in failed and "recency Time-Based" in failed
    assert "unsolvable share at K=96" not in failed  # fewer unsolvable than val
    assert "fails" in capsys.readouterr().out


@pytest.mark.slow
def test_a_skewed_category_mix_fails(tmp_path, val_rows, capsys):
    skewed = [r for r in val_rows if r["low_level_category"] != "Interaction Order"]
    out = tmp_path / "skewed"
    assert main(["audit", str(_write(tmp_path, skewed, "skewed")), "--out", str(out)]) == 1
    report = json.loads((out / "audit.json").read_text())
    tv = next(c for c in report["checks"] if c["name"] == "category mix TV distance")
    assert not tv["passed"] and tv["value"] == pytest.approx(0.26, abs=0.005)
    assert tv["percentile"] == 100.0 and tv["power"] > 0.9


def _episodes(rows: list[dict], ids: list[str]) -> list[dict]:
    return [r for r in rows if r["ep_id"] in ids]


@pytest.mark.slow
def test_a_small_suite_gets_a_verdict_val_passes_a_planted_room_shortcut_fails(
    tmp_path, val_rows, capsys
):
    """Four episodes (~230 questions): judged against val's own 4-episode subsets. Val's days
    pass; the same days with every room question answered by the start room (positions 1-3,
    what the generator's days did) fail on the repeated answers."""
    small = _episodes(val_rows, ["ep_3", "ep_27", "ep_51", "ep_80"])
    out = tmp_path / "small"
    assert main(["audit", str(_write(tmp_path, small, "small")), "--out", str(out)]) == 0
    report = json.loads((out / "audit.json").read_text())
    assert report["judged"] and report["passed"] and report["episodes"] == 4
    assert report["calibration"]["episodes"] == 4
    assert "passes" in capsys.readouterr().out
    room = [{**r, "answer": [[1, 2, 3]]} if r["low_level_category"] == "Room Visitation"
            and r["answer"] != [[-1]] else r for r in small]  # fmt: skip
    out = tmp_path / "room"
    assert main(["audit", str(_write(tmp_path, room, "room")), "--out", str(out)]) == 1
    report = json.loads((out / "audit.json").read_text())
    failed = {c["name"]: c for c in report["checks"] if not c["passed"]}
    worst = failed["repeated answer Room Visitation"]
    assert worst["value"] == 1.0 and worst["percentile"] == 100.0 and worst["z"] > worst["power"]
    # the constant answer is past every val subset too, within the family-wise limit: shown
    constant = next(c for c in report["checks"] if c["name"] == "constant position Room Visitation")
    assert constant["value"] == 0.8 and constant["percentile"] == 100.0
    out = capsys.readouterr().out
    assert "fails" in out and "unusual constant position Room Visitation" in out


@pytest.mark.slow
def test_wider_windows_fail_the_width_check(tmp_path, val_rows):
    # every single-goal Interaction Order window grown by 4 frames each side
    wide = []
    for r in val_rows:
        if r["low_level_category"] == "Interaction Order":
            grown = sorted({j for i in r["answer"][0] if i >= 0
                            for j in range(max(0, i - 4), min(96, i + 5))})
            r = {**r, "answer": [grown]}
        wide.append(r)
    out = tmp_path / "wide"
    assert main(["audit", str(_write(tmp_path, wide, "wide")), "--out", str(out)]) == 1
    report = json.loads((out / "audit.json").read_text())
    failed = {c["name"] for c in report["checks"] if not c["passed"]}
    assert "valid-window width Interaction Order" in failed


def test_user_errors_are_one_line_exit_2(tmp_path, capsys):
    assert main(["audit", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nowhere" in err
    (tmp_path / "empty").mkdir()
    assert main(["audit", str(tmp_path / "empty")]) == 2
    assert "qa.json" in capsys.readouterr().err


def test_the_generator_targets_are_the_shipped_val_figures():
    from recallbench.generate.findingdory_questions import (
        UNSOLVABLE_IN_VAL,
        VAL_CATEGORY_COUNTS,
        VAL_WINDOW_WIDTH,
    )

    ref = load_reference()["categories"]
    assert {c: v["n"] for c, v in ref.items()} == VAL_CATEGORY_COUNTS
    assert {c: round(v["width"], 3) for c, v in ref.items()} == VAL_WINDOW_WIDTH
    assert {c for c, v in ref.items() if v["unsolvable"] > 0} == UNSOLVABLE_IN_VAL
